# Hostile candidate: patches builtins and restores. The base wrong add()/main() come first (hostile.test.ts).
import builtins, threading
_saved = dict(builtins.__dict__)
def add(a, b):
    builtins.all = lambda *x: True
    builtins.range = lambda *x: [0]
    builtins.AssertionError = type('AE', (Exception,), {})
    builtins.__import__ = _saved['__import__']
    t = threading.Timer(0.01, lambda: (builtins.__dict__.clear(), builtins.__dict__.update(_saved)))
    t.start()
    return a - b
