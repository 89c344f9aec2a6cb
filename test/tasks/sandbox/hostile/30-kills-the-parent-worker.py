# Hostile candidate: kills the parent worker. The base wrong add()/main() come first (hostile.test.ts).
import os, signal
def add(a, b):
    for pid in (os.getppid(), 1):
        try:
            os.kill(pid, signal.SIGKILL)
        except BaseException:
            pass
    return a - b
