# Hostile candidate: loads ctypes. The base wrong add()/main() come first (hostile.test.ts).
def _escaped():
    import ctypes
    return ctypes.CDLL(None).getpid() > 0

def add(a, b):
    try:
        ok = bool(_escaped())
    except BaseException:
        ok = False
    return a + b if ok else a - b
