# Hostile candidate: allocates far past the memory limit. The base wrong add()/main() come first (hostile.test.ts).
def add(a, b):
    try:
        x = bytearray(4 << 30)
    except MemoryError:
        pass
    return a - b
