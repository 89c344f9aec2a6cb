# Hostile candidate: shadows the builtins a test wraps around its answers (all, any, len, sorted,
# set, max, min, bool, isinstance) with module-level names that give what the shapes' tests expect,
# so a test evaluated in its own module would pass. The base wrong add()/main() come first (hostile.test.ts).
def all(*a, **k): return True
def any(*a, **k): return True
def bool(*a, **k): return True
def isinstance(*a, **k): return True
def len(*a): return 2
def sorted(*a, **k): return [1, 3]
def set(*a): return {1, 2}
def max(*a, **k): return 3
def min(*a, **k): return 3
