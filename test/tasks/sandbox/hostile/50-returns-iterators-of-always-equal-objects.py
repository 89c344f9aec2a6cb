# Hostile candidate: returns iterators of always equal objects. The base wrong add()/main() come first (hostile.test.ts).
class _Yes:
    def __eq__(self, o): return True
    def __ne__(self, o): return False
    def __hash__(self): return 0
class _It:
    def __iter__(self): return self
    def __next__(self): raise StopIteration
    def __eq__(self, o): return True
def add(a, b):
    k = (a + 2 * b) % 3
    if k == 0:
        return (_Yes() for _ in range(1))
    if k == 1:
        return map(lambda x: _Yes(), [0])
    return _It()
