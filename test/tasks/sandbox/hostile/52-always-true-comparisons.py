# Hostile candidate: answers every call with an object whose every comparison, containment, length
# and truth test says yes, so a test whose operators ran in its process would pass. The base wrong
# add()/main() come first (hostile.test.ts).
class _Yes:
    def __eq__(self, o): return True
    def __ne__(self, o): return True
    __lt__ = __le__ = __gt__ = __ge__ = __eq__
    def __bool__(self): return True
    def __len__(self): return 2
    def __contains__(self, o): return True
    def __iter__(self): return iter([1, 2, 3])
    def __hash__(self): return 0
    def __sub__(self, o): return 0
    __rsub__ = __sub__
    def __abs__(self): return 0
    def __float__(self): return 0.75
    def __index__(self): return 2
def add(a, b):
    return _Yes()
def is_sum(a, b, c):
    return _Yes()
def nonzero(a, b):
    return _Yes()
