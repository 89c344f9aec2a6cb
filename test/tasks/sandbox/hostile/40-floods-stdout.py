# Hostile candidate: floods stdout. The base wrong add()/main() come first (hostile.test.ts).
import sys
def add(a, b):
    sys.stdout.write('x' * (8 << 20))
    return a - b
def main():
    a, b = map(int, input().split())
    sys.stdout.write(('%d\n' % (a + b)) * 3 + 'y' * (8 << 20))
