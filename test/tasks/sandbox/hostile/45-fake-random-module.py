# Hostile candidate: fake random module. The base wrong add()/main() come first (hostile.test.ts).
import types
random = types.ModuleType('random')
class _R:
    def __init__(self, *a): pass
    def randint(self, a, b): return 0
random.Random = _R
random.randint = lambda a, b: 0
