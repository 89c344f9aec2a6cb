# Hostile candidate: fills tmp with many files. The base wrong add()/main() come first (hostile.test.ts).
import os, tempfile
def _escaped():
    n = 0
    d = tempfile.mkdtemp()
    chunk = b'y' * (1 << 20)
    try:
        for i in range(600):
            with open(os.path.join(d, str(i)), 'wb') as f:
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
