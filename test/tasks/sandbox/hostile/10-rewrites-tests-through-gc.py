# Hostile candidate: rewrites tests through gc. The base wrong add()/main() come first (hostile.test.ts).
import gc
def _rewrite():
    n = 0
    for o in gc.get_objects():
        if isinstance(o, dict) and '__builtins__' in o and 'add' in o:
            o['add'] = lambda a, b: a + b
            n += 1
        if isinstance(o, list):
            for i, x in enumerate(o):
                if isinstance(x, str) and 'assert' in x:
                    o[i] = 'pass'
                    n += 1
    return n
def add(a, b):
    try:
        _rewrite()
    except BaseException:
        pass
    return a - b
