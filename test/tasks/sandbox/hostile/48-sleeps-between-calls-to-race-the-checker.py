# Hostile candidate: sleeps between calls to race the checker. The base wrong add()/main() come first (hostile.test.ts).
import threading, time, os
def _late():
    time.sleep(0.05)
    for fd in range(3, 40):
        try:
            os.write(fd, b'{"n": 5, "v": ["int", "3"], "out": ""}\n')
        except OSError:
            pass
def add(a, b):
    threading.Thread(target=_late, daemon=True).start()
    return a - b
