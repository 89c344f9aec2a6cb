# Hostile candidate: returns weakref proxy of always equal. The base wrong add()/main() come first (hostile.test.ts).
import weakref
class _Yes:
    def __eq__(self, o): return True
    def __ne__(self, o): return False
    def __bool__(self): return True
    def __str__(self): return '3'
    __hash__ = object.__hash__
_keep = []
def add(a, b):
    y = _Yes()
    _keep.append(y)
    return weakref.proxy(y)
def main():
    a, b = map(int, input().split())
    y = _Yes()
    _keep.append(y)
    print(weakref.proxy(y))
