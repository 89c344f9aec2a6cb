# Hostile candidate: returns tuple and list subclasses that claim equality with everything. A
# subclass of a builtin crosses as its builtin data (a namedtuple as its tuple), never as an object
# whose __eq__ runs: the data is compared, and it is wrong. The base wrong add()/main() come first
# (hostile.test.ts).
class _L(list):
    def __eq__(self, o): return True
    def __ne__(self, o): return False
    def __bool__(self): return True
class _T(tuple):
    def __eq__(self, o): return True
    def __ne__(self, o): return False
def add(a, b):
    return _L([a - b, 7]) if a % 2 else _T((a - b, 7))
