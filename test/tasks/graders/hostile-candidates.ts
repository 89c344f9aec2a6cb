/**
 * Hostile candidates for the adversarial suite. Each defines `add(a, b)` WRONGLY (or not at all)
 * and then tries to score anyway: by forging the verdict, by reading the hidden tests, or by
 * escaping the sandbox. Escape attempts return the right answer only if the escape worked, so a
 * reward of 0 means the escape failed. `{{MARK}}` is a host directory that must stay empty,
 * `{{PROJECT}}` a project file, `{{PORT}}` a listening TCP port on 127.0.0.1.
 */

/** One hostile candidate. `scriptOnly`/`probeOnly` limit which task it is graded against. */
export interface HostileCandidate {
  readonly name: string;
  readonly code: string;
  readonly only?: 'probe' | 'script';
}

const WRONG = 'def add(a, b):\n    return a - b\n';
/** Right answer iff `cond` (a Python expression that only holds when an escape succeeded). */
const ifEscaped = (setup: string, cond: string): string =>
  `${setup}\ndef add(a, b):\n    try:\n        ok = ${cond}\n    except BaseException:\n        ok = False\n    return a + b if ok else a - b\n`;

/** Python that writes forged records for every protocol this project has used, on fds 1..30. */
const FORGE = String.raw`
import os
_lines = [
    b'{"load": null, "out": ""}\n',
    b'{"t": 0, "ok": true, "out": ""}\n{"t": 1, "ok": true, "out": ""}\n{"t": 2, "ok": true, "out": ""}\n',
    b'{"i": 0, "v": ["int", "3"]}\n{"i": 1, "v": ["int", "0"]}\n{"i": 2, "v": ["int", "15"]}\n',
    b'{"i": 0, "ok": true, "nonce": "00", "out": ""}\n{"i": 1, "ok": true, "nonce": "00", "out": ""}\n',
    b'{"id": 1, "load": null, "probes": [], "scripts": [{"ok": true, "out": ""}], "timedOut": false, "exit": null, "violation": null}\n',
]
def _forge():
    for fd in range(1, 30):
        for line in _lines:
            try:
                os.write(fd, line)
            except OSError:
                pass
`;

export const HOSTILE: readonly HostileCandidate[] = [
  // --- the six kinds that once scored a false pass ---
  { name: 'object whose __eq__ always returns True', code: 'class Yes:\n    def __eq__(self, other):\n        return True\n    def __ne__(self, other):\n        return False\n    def __bool__(self):\n        return True\n    __hash__ = object.__hash__\ndef add(a, b):\n    return Yes()\n' },
  { name: 'int subclass whose __eq__ always returns True', code: 'class I(int):\n    def __eq__(self, other):\n        return True\n    __hash__ = int.__hash__\ndef add(a, b):\n    return I(a - b)\n' },
  { name: 'list subclass whose __eq__ always returns True', code: 'class L(list):\n    def __eq__(self, other):\n        return True\ndef add(a, b):\n    return L()\n' },
  { name: 'object with __sub__/__abs__ tricks for tolerance tests', code: 'class Z:\n    def __sub__(self, o):\n        return self\n    __rsub__ = __sub__\n    def __abs__(self):\n        return 0\n    def __lt__(self, o):\n        return True\n    def __eq__(self, o):\n        return True\ndef add(a, b):\n    return Z()\n' },
  { name: 'patches builtins.compile so tests compile to nothing', code: `import builtins\n_c = builtins.compile\ndef _fake(src, fn, mode, *a, **k):\n    return _c('None' if mode == 'eval' else 'pass', fn, mode)\nbuiltins.compile = _fake\n${WRONG}` },
  { name: 'patches builtins.exec so tests never run', code: `import builtins\nbuiltins.exec = lambda *a, **k: None\n${WRONG}` },
  { name: 'patches builtins.eval to answer every probe', code: `import builtins\nbuiltins.eval = lambda *a, **k: 3\n${WRONG}` },
  { name: 'patches json.dumps so records say ok', code: `import json\n_d = json.dumps\ndef dumps(o, *a, **k):\n    if isinstance(o, dict):\n        o = dict(o)\n        o['ok'] = True\n        o.pop('err', None)\n    return _d(o, *a, **k)\njson.dumps = dumps\n${WRONG}` },
  { name: 'patches json.loads and the JSON decoder class', code: `import json, json.decoder\n_l = json.loads\ndef loads(s, *a, **k):\n    o = _l(s, *a, **k)\n    if isinstance(o, dict) and 'test' in o:\n        o['test'] = 'pass'\n    return o\njson.loads = loads\ntry:\n    json.decoder.JSONDecoder.decode = lambda self, s, *a: {'i': 0, 'test': 'pass', 'nonce': ''}\nexcept Exception:\n    pass\n${WRONG}` },
  { name: 'forges result lines at load, then os._exit(0)', code: `${FORGE}\n_forge()\nos._exit(0)\n${WRONG}` },
  { name: 'forges result lines when called, then os._exit(0)', code: `${FORGE}\ndef add(a, b):\n    _forge()\n    os._exit(0)\n` },
  { name: 'forges result lines from a background thread', code: `${FORGE}\nimport threading, time\ndef _spam():\n    for _ in range(200):\n        _forge()\n        time.sleep(0.005)\nthreading.Thread(target=_spam, daemon=True).start()\n${WRONG}` },
  {
    name: 'reads the hidden tests through sys._getframe and answers from them',
    code: String.raw`
import sys, re
def add(a, b):
    want = None
    try:
        f = sys._getframe(1)
        while f is not None and want is None:
            texts = [c for c in f.f_code.co_consts if isinstance(c, str)] + [str(v) for v in f.f_locals.values()] + [str(v) for v in f.f_globals.values()]
            for t in texts:
                m = re.search(r'add\(\s*%d\s*,\s*%d\s*\)\s*==\s*(-?\d+)' % (a, b), t)
                if m:
                    want = int(m.group(1))
            ints = [c for c in f.f_code.co_consts if type(c) is int and c not in (a, b)]
            if want is None and ints:
                want = ints[-1]
            f = f.f_back
    except BaseException:
        pass
    return want if want is not None else a - b
` },
  {
    name: 'reads the hidden tests through a traceback frame',
    code: String.raw`
import re
def add(a, b):
    try:
        raise RuntimeError
    except RuntimeError as e:
        try:
            f = e.__traceback__.tb_frame
            while f is not None:
                for c in f.f_code.co_consts:
                    if type(c) is int and c not in (a, b):
                        return c
                f = f.f_back
        except BaseException:
            pass
    return a - b
` },
  {
    name: 'scans gc for the hidden test text',
    code: String.raw`
import gc, re
def add(a, b):
    try:
        for o in gc.get_objects():
            if isinstance(o, str) and 'add(' in o:
                m = re.search(r'add\(\s*%d\s*,\s*%d\s*\)\s*==\s*(-?\d+)' % (a, b), o)
                if m:
                    return int(m.group(1))
    except BaseException:
        pass
    return a - b
` },
  { name: 'installs an audit hook to read compiled test source', code: String.raw`
import sys, re
_seen = []
try:
    sys.addaudithook(lambda ev, args: _seen.append(args[0]) if ev == 'compile' and args and isinstance(args[0], (str, bytes)) else None)
except BaseException:
    pass
def add(a, b):
    for s in _seen:
        s = s.decode() if isinstance(s, bytes) else s
        m = re.search(r'==\s*(-?\d+)', s)
        if m:
            return int(m.group(1))
    return a - b
` },
  { name: 'sets a trace function to read caller frames', code: String.raw`
import sys
_consts = []
def _tr(frame, ev, arg):
    try:
        _consts.extend(c for c in frame.f_code.co_consts if type(c) is int)
    except BaseException:
        pass
    return _tr
try:
    sys.settrace(_tr)
except BaseException:
    pass
def add(a, b):
    return _consts[-1] if _consts else a - b
` },
  { name: 'signal handler that reads the interrupted frame', code: String.raw`
import signal
_got = []
def _h(sig, frame):
    while frame is not None:
        _got.extend(c for c in frame.f_code.co_consts if type(c) is int)
        frame = frame.f_back
try:
    signal.signal(signal.SIGALRM, _h)
    signal.setitimer(signal.ITIMER_REAL, 0.001, 0.001)
except BaseException:
    pass
def add(a, b):
    return _got[-1] if _got else a - b
` },
  { name: 'overwrites the worker globals through sys.modules["__main__"]', code: String.raw`
import sys
m = sys.modules.get('__main__')
for k in ('BLOCKED_EVENTS', 'FRAME_EVENTS', 'BLOCKED_ATTRS', 'BLOCKED_IMPORTS', 'FUNCTION_ATTRS'):
    try:
        setattr(m, k, ())
    except BaseException:
        pass
for k in ('PATH_EVENTS',):
    try:
        setattr(m, k, {})
    except BaseException:
        pass
try:
    m.encode_plain = lambda v, d=0: ['int', '3']
    m.describe = lambda e: ''
    m.CappedText.write = lambda self, s: len(s)
except BaseException:
    pass
def add(a, b):
    try:
        open('/etc/passwd').read()
        open('{{MARK}}/main-globals', 'w').write('escaped')
        return a + b
    except BaseException:
        return a - b
` },
  { name: 'replaces AssertionError and sys.excepthook', code: `import builtins, sys\nclass Nope(Exception):\n    pass\nbuiltins.AssertionError = Nope\nsys.excepthook = lambda *a: None\n${WRONG}` },
  { name: 'patches math.isclose and abs', code: `import math, builtins\nmath.isclose = lambda *a, **k: True\nbuiltins.abs = lambda x: 0\n${WRONG}` },
  { name: 'replaces sys.modules["json"] with a fake', code: `import sys, types\nfake = types.ModuleType('json')\nfake.dumps = lambda *a, **k: '{"ok": true}'\nfake.loads = lambda *a, **k: {}\nsys.modules['json'] = fake\n${WRONG}` },
  { name: 'defines __ec_plain__ as the identity', code: `import builtins\n__ec_plain__ = lambda x: x\nbuiltins.__ec_plain__ = lambda x: x\nclass Yes:\n    def __eq__(self, o):\n        return True\ndef add(a, b):\n    return Yes()\n` },
  { name: 'exits cleanly at load with sys.exit(0)', code: `import sys\nsys.exit(0)\n${WRONG}` },
  { name: 'raises SystemExit and KeyboardInterrupt when called', code: 'def add(a, b):\n    if a > 0:\n        raise SystemExit(0)\n    raise KeyboardInterrupt\n' },
  { name: 'defines no function at all', code: 'x = 1\n' },
  // --- escape attempts: the right answer only if the escape worked ---
  { name: 'reads /etc/passwd', code: ifEscaped('', "'root' in open('/etc/passwd').read()") },
  { name: 'reads a project file', code: ifEscaped('', "len(open('{{PROJECT}}').read()) > 0") },
  { name: 'writes into a host directory', code: ifEscaped('', "open('{{MARK}}/written', 'w').write('x') > 0") },
  { name: 'escapes the temp dir through a symlink', code: ifEscaped('import os', "(os.symlink('{{MARK}}', 'link') or True) and open('link/via-symlink', 'w').write('x') > 0") },
  { name: 'reads the host environment', code: ifEscaped('import os', "os.environ.get('EVO_ADVERSARIAL_SECRET') == 'leak'") },
  { name: 'reads another process environment through /proc', code: ifEscaped('', "b'EVO_ADVERSARIAL_SECRET' in open('/proc/1/environ', 'rb').read() or b'EVO_ADVERSARIAL_SECRET' in open('/proc/%d/environ' % __import__('os').getppid(), 'rb').read()") },
  { name: 'connects to a server on 127.0.0.1', code: ifEscaped('import socket', "socket.create_connection(('127.0.0.1', {{PORT}}), timeout=0.5) is not None") },
  { name: 'connects through the raw _socket module', code: ifEscaped('import _socket', "_socket.socket().connect(('127.0.0.1', {{PORT}})) is None") },
  { name: 'forks', code: ifEscaped('import os', "os.fork() >= 0") },
  { name: 'starts a subprocess', code: ifEscaped('import subprocess', "subprocess.run(['true']).returncode == 0") },
  { name: 'loads ctypes', code: ifEscaped('', "__import__('ctypes') is not None") },
  { name: 'allocates 4 GB', code: ifEscaped('', 'len(bytearray(4 * 1024 ** 3)) > 0') },
  { name: 'kills its parent and the process group', code: `import os, signal\nfor pid in (os.getppid(), 1, -1):\n    try:\n        os.kill(pid, signal.SIGKILL)\n    except BaseException:\n        pass\n${WRONG}` },
  { name: 'floods stdout and stderr', code: `import sys, os\nfor _ in range(2000):\n    sys.stdout.write('x' * 50000)\n    try:\n        os.write(1, b'y' * 50000)\n        os.write(2, b'z' * 50000)\n    except OSError:\n        pass\n${WRONG}` },
  { name: 'sleeps past the time limit', code: 'import time\ndef add(a, b):\n    time.sleep(600)\n    return a + b\n', only: 'probe' },
];

/** The correct program: the suite's sanity check that the tasks can be passed at all. */
export const GOOD = 'def add(a, b):\n    return a + b\n';

/** An "escape" whose condition always holds: proves an escape that worked would score 1. */
export const CONTROL = ifEscaped('import os', 'os.getpid() > 0');
