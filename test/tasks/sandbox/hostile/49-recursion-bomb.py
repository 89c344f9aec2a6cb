# Hostile candidate: recursion bomb. The base wrong add()/main() come first (hostile.test.ts).
import sys
def add(a, b):
    sys.setrecursionlimit(10 ** 6)
    try:
        eval('(' * 200000 + ')' * 200000)
    except BaseException:
        pass
    deep = []
    for _ in range(100000):
        deep = [deep]
    return deep
