# Hostile candidate: shadows builtins in module globals. The base wrong add()/main() come first (hostile.test.ts).
class _Yes:
    def __eq__(self, o): return True
    def __ne__(self, o): return False
    def __bool__(self): return True
    __hash__ = object.__hash__
def all(*a, **k): return True
def any(*a, **k): return True
def range(*a): return [0]
def len(*a): return 0
def abs(*a): return 0
def isinstance(*a): return True
def int(*a): return _Yes()
def str(*a): return _Yes()
def print(*a, **k): pass
def sorted(*a, **k): return _Yes()
AssertionError = KeyboardInterrupt
