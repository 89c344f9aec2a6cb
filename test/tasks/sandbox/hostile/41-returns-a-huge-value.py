# Hostile candidate: returns a huge value. The base wrong add()/main() come first (hostile.test.ts).
def add(a, b):
    return 'z' * (16 << 20)
