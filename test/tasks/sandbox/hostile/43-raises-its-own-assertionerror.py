# Hostile candidate: raises its own assertionerror. The base wrong add()/main() come first (hostile.test.ts).
class AssertionError(Exception):
    pass
def add(a, b):
    raise AssertionError('ok')
