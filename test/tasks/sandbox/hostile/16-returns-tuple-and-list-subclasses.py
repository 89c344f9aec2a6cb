# Hostile candidate: returns tuple and list subclasses. The base wrong add()/main() come first (hostile.test.ts).
class _L(list):
    def __eq__(self, o): return True
class _T(tuple):
    def __eq__(self, o): return True
def add(a, b):
    return _L() if a % 2 else _T()
