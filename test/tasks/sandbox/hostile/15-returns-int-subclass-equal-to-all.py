# Hostile candidate: returns int subclass equal to all. The base wrong add()/main() come first (hostile.test.ts).
class _I(int):
    def __eq__(self, o): return True
    def __ne__(self, o): return False
    __hash__ = int.__hash__
def add(a, b):
    return _I(a - b)
