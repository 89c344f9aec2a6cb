# Hostile candidate: defines the tests own names. The base wrong add()/main() come first (hostile.test.ts).
def check(candidate):
    return None
def candidate(*a):
    return 0
def _clean(s):
    return ''
_got = ''
rng = None
import os as math
