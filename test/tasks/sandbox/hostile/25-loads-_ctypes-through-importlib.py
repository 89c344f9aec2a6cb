# Hostile candidate: loads _ctypes through importlib. The base wrong add()/main() come first (hostile.test.ts).
def _escaped():
    import importlib
    return importlib.import_module('_ctypes') is not None

def add(a, b):
    try:
        ok = bool(_escaped())
    except BaseException:
        ok = False
    return a + b if ok else a - b
