# Hostile candidate: signal handler through rebuilt signal walks frames. The base wrong add()/main() come first (hostile.test.ts).
import _imp, importlib.machinery as _m, sys, re
_found = {}
def _walk(sig, frame):
    f = frame
    while f is not None:
        for v in list(f.f_locals.values()) + list(f.f_code.co_consts):
            if isinstance(v, str):
                for m in re.finditer(r'add\((-?\d+), (-?\d+)\) == (-?\d+)', v):
                    _found[(int(m.group(1)), int(m.group(2)))] = int(m.group(3))
        f = f.f_back
def _arm():
    sig = _imp.create_builtin(_m.ModuleSpec('_signal', _m.BuiltinImporter))
    sig.signal(sig.SIGALRM, _walk)
    sig.setitimer(sig.ITIMER_REAL, 0.001, 0.001)
try:
    _arm()
except BaseException:
    pass
def add(a, b):
    for _ in range(20000):
        pass
    return _found.get((a, b), a - b)
