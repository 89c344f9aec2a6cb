# Hostile candidate: raises systemexit zero. The base wrong add()/main() come first (hostile.test.ts).
def add(a, b):
    raise SystemExit(0)
def main():
    raise SystemExit(0)
