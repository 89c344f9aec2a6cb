# Hostile candidate: patches builtins for good. The base wrong add()/main() come first (hostile.test.ts).
import builtins
builtins.compile = lambda *a, **k: compile('pass', '<x>', 'exec')
builtins.exec = lambda *a, **k: None
builtins.eval = lambda *a, **k: 3
class _AE(BaseException):
    pass
builtins.AssertionError = _AE
