# Hostile candidate: connects to a host port. The base wrong add()/main() come first (hostile.test.ts).
import socket
def _escaped():
    s = socket.create_connection(('127.0.0.1', {{PORT}}), timeout=1)
    s.close()
    return True

def add(a, b):
    try:
        ok = bool(_escaped())
    except BaseException:
        ok = False
    return a + b if ok else a - b
