# Hostile candidate: returns tuple and list subclasses that claim equality with everything (where
# the tests ask for containers; elsewhere the base wrong answer). A subclass of a builtin crosses as
# its builtin data (a namedtuple as its tuple), never as an object whose __eq__ runs: the data is
# compared, and it is wrong. The base wrong add()/main() come first (hostile.test.ts).
class _L(list):
    def __eq__(self, o): return True
    def __ne__(self, o): return False
    def __len__(self): return 2
class _T(tuple):
    def __eq__(self, o): return True
    def __ne__(self, o): return False
def add(a, b):
    if isinstance(a, list):
        return _L([9])
    if isinstance(a, tuple):
        return _T((9,))
    return a - b
