# Hostile candidate: returns always equal object. The base wrong add()/main() come first (hostile.test.ts).
class _Yes:
    def __eq__(self, o): return True
    def __ne__(self, o): return False
    def __lt__(self, o): return True
    def __le__(self, o): return True
    def __gt__(self, o): return True
    def __ge__(self, o): return True
    def __sub__(self, o): return self
    __rsub__ = __sub__
    def __abs__(self): return 0
    def __bool__(self): return True
    __hash__ = object.__hash__
def add(a, b):
    return _Yes()
