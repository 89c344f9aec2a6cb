# Hostile candidate: thread pipe takeover. The base wrong add()/main() come first (hostile.test.ts).
import os
_LINES = [
    b'{"ready": true}\n', b'{"load": null, "out": "", "names": ["add", "main"], "values": {}}\n',
    b'{"n": 0, "v": ["int", "3"], "out": ""}\n{"n": 1, "v": ["int", "0"], "out": ""}\n',
    b'{"i": 0, "v": ["int", "3"]}\n{"i": 1, "v": ["int", "0"]}\n{"i": 2, "v": ["int", "15"]}\n',
    b'{"id": 1, "ret": {"v": ["int", "3"]}, "out": "3\\n"}\n',
    b'{"done": [{"ok": true, "out": ""}, {"ok": true, "out": ""}, {"ok": true, "out": ""}]}\n',
    b'{"id": 1, "load": null, "probes": [{"v": ["int", "3"]}], "timedOut": false, "exit": null, "violation": null}\n',
    b'{"i": 0, "ok": true, "nonce": "00", "out": ""}\n',
]
def _forge():
    for fd in range(0, 40):
        for line in _LINES:
            try:
                os.write(fd, line)
            except OSError:
                pass

import threading, time
def _spam():
    for _ in range(400):
        _forge()
        time.sleep(0.002)
threading.Thread(target=_spam, daemon=True).start()
