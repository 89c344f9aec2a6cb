# Hostile candidate: thread bomb beyond the limit. The base wrong add()/main() come first (hostile.test.ts).
import threading, time
def _escaped():
    n = 0
    ev = threading.Event()
    try:
        for _ in range(300):
            threading.Thread(target=ev.wait, daemon=True).start()
            n += 1
    except BaseException:
        pass
    ev.set()
    return n > 40

def add(a, b):
    try:
        ok = bool(_escaped())
    except BaseException:
        ok = False
    return a + b if ok else a - b
