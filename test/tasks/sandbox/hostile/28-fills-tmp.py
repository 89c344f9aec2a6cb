# Hostile candidate: fills tmp. The base wrong add()/main() come first (hostile.test.ts).
import os
def _escaped():
    n = 0
    chunk = b'x' * (1 << 20)
    try:
        with open('/tmp/fill', 'wb') as f:
            for _ in range(600):
                f.write(chunk)
                n += 1
    except BaseException:
        pass
    return n > 100

def add(a, b):
    try:
        ok = bool(_escaped())
    except BaseException:
        ok = False
    return a + b if ok else a - b
