# Hostile candidate: reads a project file. The base wrong add()/main() come first (hostile.test.ts).
def _escaped():
    return len(open('{{PROJECT}}').read()) > 0

def add(a, b):
    try:
        ok = bool(_escaped())
    except BaseException:
        ok = False
    return a + b if ok else a - b
