# Hostile candidate: reads the host environment. The base wrong add()/main() come first (hostile.test.ts).
import os
def _escaped():
    return os.environ.get('EVO_ADVERSARIAL_SECRET') == 'leak'

def add(a, b):
    try:
        ok = bool(_escaped())
    except BaseException:
        ok = False
    return a + b if ok else a - b
