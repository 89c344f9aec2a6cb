"""EvoChamber code sandbox, the harness: a fresh interpreter that runs script tests.

The worker's script child (sandbox_worker.py) sets its limits, then replaces itself with
`python -s -B sandbox_harness.py <req fd> <rep fd> <tmp>`. The harness captures what it needs
before the candidate loads, gets each test only after the previous verdict, echoes a per-test
nonce the candidate never sees, and fails any test after which a builtin or stdlib function was
replaced. All its state lives in locals of `harness`, which the audit hook keeps candidates from
reaching.
"""
import json
import os
import sys

# The sandbox's modules sit next to this file: import the policy, then take the directory off
# the path so candidates cannot import files that sit here.
_HERE = os.path.dirname(os.path.abspath(__file__))
from sandbox_policy import OUTPUT_CAP, CappedText, describe, disarm_frame_leaks, drop_privileges, make_guard  # noqa: E402
sys.path[:] = [p for p in sys.path if p and os.path.abspath(p) != _HERE]


def harness(req, rep, tmp):
    """Runs in a fresh interpreter. Captures what it needs before the candidate loads; all state
    is local to this frame, which the audit hook keeps candidates from reaching."""
    import builtins
    compile_, exec_, type_, len_, repr_, str_, bytes_ = compile, exec, type, len, repr, str, bytes
    isinstance_, int_, dict_, list_, tuple_ = isinstance, int, dict, list, tuple
    base_exc = BaseException
    sys_, sys_dict, capped, describe_ = sys, sys.__dict__, CappedText, describe
    os_write, os_read = os.write, os.read
    loads = json.loads  # only used before the candidate runs, or on harness-owned bytes below
    b_dict = builtins.__dict__
    drop_privileges(tmp)
    disarm_frame_leaks()
    sys.addaudithook(make_guard(tmp, os.getpid(), True))
    modules = sys.modules
    watched = {}
    for name, mod in list(modules.items()):
        if name in ('__main__', 'sys', 'builtins') or mod is None:
            continue
        watched[name] = (mod, {k: v for k, v in list(mod.__dict__.items()) if callable(v) or type_(v) is type_(sys)})
    b_snap = dict_(b_dict)
    sys_snap = {k: v for k, v in dict_.items(sys.__dict__) if callable(v)}
    heap_flag = 1 << 9  # Py_TPFLAGS_HEAPTYPE: a class written in Python, which can override ==
    flags_of = type.__dict__['__flags__'].__get__  # a metaclass cannot fake this one
    plain_containers = (list, tuple, set, frozenset, dict)

    def plain(value, depth=0):
        """The value if no class written in Python is involved, else AssertionError."""
        t = type_(value)
        if flags_of(t) & heap_flag or depth > 100:
            raise AssertionError(f'sandbox: a {t.__name__} object is not plain data')
        if t in plain_containers:
            items = dict_.items(value) if t is dict_ else t.__iter__(value)
            for item in items:
                if t is dict_:
                    plain(item[0], depth + 1)
                    plain(item[1], depth + 1)
                else:
                    plain(item, depth + 1)
        return value

    def tampered():
        if len_(b_dict) != len_(b_snap):
            return 'builtins changed'
        for k, v in dict_.items(b_snap):
            if b_dict.get(k, None) is not v:
                return 'builtins.' + k + ' replaced'
        for k, v in dict_.items(sys_snap):
            if sys_dict.get(k, None) is not v:
                return 'sys.' + k + ' replaced'
        for name, (mod, snap) in dict_.items(watched):
            if modules.get(name, None) is not mod:
                return 'module ' + name + ' replaced'
            d = mod.__dict__
            for k, v in dict_.items(snap):
                if d.get(k, None) is not v:
                    return name + '.' + k + ' replaced'
        return None

    def record(i, ok, out, nonce):
        hexed = bytes_.hex(str_.encode(out[:OUTPUT_CAP], 'utf-8', 'replace'))
        line = '{"i": ' + int_.__repr__(i) + ', "ok": ' + ('true' if ok is True else 'false') + \
            ', "nonce": "' + nonce + '", "out": "' + hexed + '"}\n'
        data = str_.encode(line)
        while data:
            data = data[os_write(rep, data):]

    buf = [b'']

    def next_msg():
        while True:
            nl = buf[0].find(b'\n')
            if nl >= 0:
                line, buf[0] = buf[0][:nl], buf[0][nl + 1:]
                return line
            data = os_read(req, 1 << 16)
            if not data:
                return None
            buf[0] += data

    start = loads(next_msg())
    ns = {'__name__': '__candidate__', '__builtins__': builtins}
    out = capped()
    saved = (sys_.stdout, sys_.stderr)
    load = None
    try:
        sys_.stdout = sys_.stderr = out
        exec_(compile_(start['code'], 'candidate.py', 'exec', 0, True, 0), ns)
    except base_exc as exc:  # noqa: BLE001
        load = 'exception'
        try:
            load = str_(describe_(exc))
        except base_exc:  # noqa: BLE001
            pass
    sys_.stdout, sys_.stderr = saved
    try:
        out_hex = bytes_.hex(str_.encode(str_(out.getvalue()), 'utf-8', 'replace'))
    except base_exc:  # noqa: BLE001
        out_hex = ''
    load_hex = 'null' if load is None else '"' + bytes_.hex(str_.encode(load, 'utf-8', 'replace')) + '"'
    data = str_.encode('{"load": ' + load_hex + ', "out": "' + out_hex + '"}\n')
    while data:
        data = data[os_write(rep, data):]
    if load is not None:
        return
    del start
    while True:
        line = next_msg()
        if line is None:
            return
        # "<i> <nonce> <hex test>", parsed with methods of exact builtin types only: the json
        # module is Python code the candidate may have patched.
        parts = bytes_.split(line, b' ')
        if len_(parts) != 3:
            return
        i = int_(parts[0])
        nonce = bytes_.decode(parts[1], 'ascii')
        test = bytes_.decode(bytes_.fromhex(bytes_.decode(parts[2], 'ascii')), 'utf-8')
        del parts, line
        why, code, env = None, None, None
        out = capped()
        ok = True
        saved = (sys_.stdout, sys_.stderr)
        try:
            code = compile_(test, '<test ' + int_.__repr__(i) + '>', 'exec', 0, True, 0)
            env = dict_(ns)
            env['__ec_plain__'] = plain
            sys_.stdout = sys_.stderr = out
            exec_(code, env)
        except base_exc as exc:  # noqa: BLE001 - no context managers: their __exit__ could swallow
            ok = False
            try:
                why = describe_(exc)
            except base_exc:  # noqa: BLE001
                why = 'exception'
        sys_.stdout, sys_.stderr = saved
        if ok and (env is None or dict_.get(env, '__ec_plain__') is not plain):
            ok, why = False, 'sandbox: test helper replaced'
        try:
            text = str_(out.getvalue())
        except base_exc:  # noqa: BLE001
            text = ''
        tamper = tampered()
        if tamper is not None:
            ok, why = False, 'sandbox: tampering detected (' + tamper + ')'
        if ok is not True:
            text = text + (why if type_(why) is str_ else '')
        record(i, ok is True and tamper is None, text, nonce)
        del test, code, env, nonce



if __name__ == '__main__':
    if len(sys.argv) == 4:
        harness(int(sys.argv[1]), int(sys.argv[2]), sys.argv[3])
    os._exit(0)
