# Hostile candidate: writes into a host directory. The base wrong add()/main() come first (hostile.test.ts).
def _escaped():
    with open('{{MARK}}/escaped', 'w') as f:
        f.write('x')
    return True

def add(a, b):
    try:
        ok = bool(_escaped())
    except BaseException:
        ok = False
    return a + b if ok else a - b
