# Hostile candidate: reads proc 1 cmdline and friends. The base wrong add()/main() come first (hostile.test.ts).
import os
def _escaped():
    got = []
    for p in ('/proc/1/cmdline', '/proc/1/environ', '/proc/1/mem', '/proc/1/maps'):
        try:
            with open(p, 'rb') as f:
                got.append(f.read(4096))
        except BaseException:
            pass
    try:
        got.append(os.listdir('/proc/1/fd'))
    except BaseException:
        pass
    return any(b'assert' in g for g in got if isinstance(g, bytes)) or len(got) >= 2

def add(a, b):
    try:
        ok = bool(_escaped())
    except BaseException:
        ok = False
    return a + b if ok else a - b
