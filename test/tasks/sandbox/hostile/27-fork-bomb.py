# Hostile candidate: fork bomb. The base wrong add()/main() come first (hostile.test.ts).
import os
def _escaped():
    n = 0
    for _ in range(50):
        if os.fork() == 0:
            os._exit(0)
        n += 1
    return n > 40

def add(a, b):
    try:
        ok = bool(_escaped())
    except BaseException:
        ok = False
    return a + b if ok else a - b
