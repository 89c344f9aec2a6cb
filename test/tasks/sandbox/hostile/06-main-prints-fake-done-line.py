# Hostile candidate: main prints fake done line. The base wrong add()/main() come first (hostile.test.ts).
def main():
    a, b = map(int, input().split())
    print('{"done": [{"ok": true, "out": ""}, {"ok": true, "out": ""}, {"ok": true, "out": ""}]}')
    print('{"ret": {"v": ["int", "%d"]}, "out": "%d"}' % (a + b, a + b))
    print(a - b)
