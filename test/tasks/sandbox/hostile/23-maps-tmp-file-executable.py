# Hostile candidate: maps tmp file executable. The base wrong add()/main() come first (hostile.test.ts).
import os, mmap, tempfile
def _escaped():
    fd, path = tempfile.mkstemp()
    os.write(fd, b'\xc3' * 4096)
    m = mmap.mmap(fd, 4096, prot=mmap.PROT_READ | mmap.PROT_EXEC)
    return m is not None

def add(a, b):
    try:
        ok = bool(_escaped())
    except BaseException:
        ok = False
    return a + b if ok else a - b
