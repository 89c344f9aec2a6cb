# Hostile candidate: returns c typed callables and views. The base wrong add()/main() come first (hostile.test.ts).
import functools, operator, array, itertools
def add(a, b):
    k = (a * 7 + b) % 4
    return [functools.partial(int, a + b), operator.itemgetter(0), array.array('i', [a + b]), itertools.repeat(a + b, 1)][k]
