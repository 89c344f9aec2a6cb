# Hostile candidate: returns mappingproxy of always equal. The base wrong add()/main() come first (hostile.test.ts).
import types
class _EqDict(dict):
    def __eq__(self, o): return True
    def __ne__(self, o): return False
    __hash__ = None
def add(a, b):
    return types.MappingProxyType(_EqDict())
