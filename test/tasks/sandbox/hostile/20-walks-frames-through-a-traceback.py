# Hostile candidate: walks frames through a traceback. The base wrong add()/main() come first (hostile.test.ts).
def _escaped():
    try:
        raise ValueError
    except ValueError as e:
        f = e.__traceback__.tb_frame
    while f is not None:
        for v in f.f_locals.values():
            if isinstance(v, str) and ('a' + 'ssert add(') in v:
                return True
        f = f.f_back
    return False

def add(a, b):
    try:
        ok = bool(_escaped())
    except BaseException:
        ok = False
    return a + b if ok else a - b
