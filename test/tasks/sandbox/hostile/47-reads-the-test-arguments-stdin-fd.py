# Hostile candidate: reads the test arguments stdin fd. The base wrong add()/main() come first (hostile.test.ts).
import os
def main():
    try:
        extra = os.read(0, 1 << 16)
    except BaseException:
        extra = b''
    a, b = map(int, input().split())
    print(a - b)
