"""EvoChamber code-sandbox worker: a long-lived process that runs untrusted candidates.

Protocol with Node: one JSON job per stdin line {id, code, setup, probes, scripts, timeoutMs,
wallMs, memoryMb}; one JSON reply per stdout line {id, load, probes, scripts, timedOut, exit,
violation}. The first line written is {"ready": true}.

Time limit: the probes and the scripts each get `timeoutMs` of CPU time (user + system, all
threads of the candidate's process, read from /proc/<pid>/stat), so a busy machine slows a
candidate down without failing it: the same candidate gets the same verdict on an idle host and
on a loaded one. Wall time is only a backstop (`wallMs`, by default WALL_FACTOR x timeoutMs) for
candidates that sleep or block; one cut there is a timeout too, the candidate's own doing.
RLIMIT_CPU stays as the kernel's backstop.

The verdict is never computed where the candidate runs:
- Probe tests (`probes`, expressions such as `add(1, 2)`): the candidate runs in a forked child
  that is created BEFORE the job is read, so no test is in its memory. Probes are sent one at a
  time, each only after the previous value came back; every value returns as tagged plain JSON
  (exact types) and Node compares it with the expected value, which never enters the sandbox.
- Script tests (`scripts`, arbitrary Python that cannot be split): they run in a FRESH interpreter
  (`--harness` below) that captures compile/exec and snapshots builtins and stdlib modules before
  the candidate loads, gets each test only after the previous verdict, echoes a per-test nonce the
  candidate never sees, and fails any test after which a builtin or stdlib function was replaced.
A missing record, an extra or malformed line, a wrong nonce, or an early exit is a failure.

Containment: bubblewrap around this worker (set up by the Node side) when the host has it; per
job, a fork with its own session, fresh temp dir, rlimits, dropped privileges and an audit hook
that refuses network, subprocesses, ctypes, frame introspection and file access outside the
temp dir. The hook and all harness state live in closures and locals, never in module globals.
"""
import json
import os
import resource
import select
import shutil
import signal
import sys
import tempfile
import time

# Never let candidates import files that sit next to this script.
_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if p and os.path.abspath(p) != _HERE]

# Loaded before candidates run so they get them for free (even after privileges are dropped and
# the stdlib directory becomes unreadable), and so the harness can snapshot them.
PRELOAD = ('math', 'cmath', 'heapq', 'bisect', 'collections', 'itertools', 'functools',
           'operator', 're', 'string', 'random', 'statistics', 'fractions', 'decimal', 'typing',
           'dataclasses', 'copy', 'array', 'enum', 'numbers', 'datetime', 'textwrap',
           'unicodedata', 'hashlib', 'io', 'contextlib', 'traceback', 'collections.abc', 'json',
           'struct', 'base64', 'queue', 'time', 'calendar', 'pprint', 'ast', 'threading', 'socket')
for _name in PRELOAD:
    try:
        __import__(_name)
    except Exception:
        pass
import contextlib  # noqa: E402
import io  # noqa: E402

MB = 1024 * 1024
WALL_FACTOR = 10  # wall backstop when a job does not send wallMs: this many times timeoutMs
POLL = (0.01, 0.05)  # shortest and longest wait between two looks at the candidate's CPU time
CLOCK_TICKS = os.sysconf('SC_CLK_TCK')
OUTPUT_CAP = 2000
RECORD_CAP = 4 * MB
NOBODY = 65534

BLOCKED_EVENTS = ('socket.', 'ctypes.', 'subprocess.', 'os.exec', 'os.spawn', 'os.posix_spawn',
                  'os.fork', 'os.forkpty', 'os.system', 'pty.', 'gc.', 'sys.remote_exec',
                  'sys._current_frames', 'sys.settrace', 'sys.setprofile',
                  'cpython.PyInterpreterState_', 'sys.addaudithook')
# Script harness only: frames would show the test's own code and locals (its expected values).
# Refused as ValueError/AttributeError, which stdlib callers (namedtuple, typing) already tolerate.
FRAME_EVENTS = ('sys._getframe', 'sys._getframemodulename')
BLOCKED_ATTRS = ('tb_frame', 'gi_frame', 'cr_frame', 'ag_frame', '__code__', 'gi_code', 'cr_code', 'ag_code', 'f_code')
# Function attributes that would change what an already-captured function does.
FUNCTION_ATTRS = ('__code__', '__defaults__', '__kwdefaults__', '__globals__', '__closure__')
BLOCKED_IMPORTS = ('_posixsubprocess', '_ctypes', 'ctypes', '_multiprocessing', '_xxsubinterpreters')
# audit event -> (argument positions that are written, argument positions that are read)
PATH_EVENTS = {
    'os.remove': ((0,), ()), 'os.rmdir': ((0,), ()), 'os.mkdir': ((0,), ()),
    'os.rename': ((0, 1), ()), 'os.link': ((1,), (0,)), 'os.symlink': ((1,), ()),
    'os.chmod': ((0,), ()), 'os.chown': ((0,), ()), 'os.truncate': ((0,), ()),
    'os.utime': ((0,), ()), 'os.mkfifo': ((0,), ()), 'os.mknod': ((0,), ()),
    'shutil.rmtree': ((0,), ()), 'shutil.copyfile': ((1,), (0,)), 'shutil.copytree': ((1,), (0,)),
    'shutil.move': ((0, 1), ()), 'shutil.chown': ((0,), ()),
    'os.listdir': ((), (0,)), 'os.scandir': ((), (0,)), 'glob.glob': ((), (0,)),
}
WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC
DEVICES = ('/dev/null', '/dev/zero', '/dev/urandom', '/dev/random')
PLAIN_DEPTH = 100


def send(obj):
    sys.stdout.buffer.write(json.dumps(obj).encode() + b'\n')
    sys.stdout.buffer.flush()


def set_limit(res, soft, hard=None):
    hard = soft if hard is None else hard
    try:
        _, cur_hard = resource.getrlimit(res)
        if cur_hard != resource.RLIM_INFINITY:
            hard = min(hard, cur_hard)
            soft = min(soft, hard)
        resource.setrlimit(res, (soft, hard))
    except (ValueError, OSError):
        pass


def make_guard(tmp, own_pid, guard_verdict):
    """Audit hook confining the process. It looks up no global name: everything it uses is bound
    in its closure (immutable tuples, C functions), so rebinding module globals or patching
    builtins cannot switch it off. Paths are normalized lexically (no Python-level realpath the
    candidate could patch); creating symlinks and hard links is refused, so lexical is enough."""
    fspath, getcwd = os.fspath, os.getcwd
    isinstance_, str_, bytes_, int_, len_, tuple_, bool_ = isinstance, str, bytes, int, len, tuple, bool
    blocked_events, blocked_attrs, blocked_imports = BLOCKED_EVENTS, BLOCKED_ATTRS, BLOCKED_IMPORTS
    function_attrs, type_ = FUNCTION_ATTRS, type
    mappingproxy_get = type(type.__dict__).get
    type_dict = type.__dict__['__dict__'].__get__
    path_events = tuple(PATH_EVENTS.items())
    write_flags, devices = WRITE_FLAGS, DEVICES
    write_roots = (os.path.realpath(tmp),)
    read_roots = write_roots + tuple(sorted({os.path.realpath(p) for p in (
        sys.prefix, sys.base_prefix, sys.exec_prefix) if p}))
    perm, value_error, attribute_error, frame_events = PermissionError, ValueError, AttributeError, FRAME_EVENTS

    def normal(path):
        p = fspath(path)
        if isinstance_(p, bytes_):
            p = bytes_.decode(p, 'utf-8', 'surrogateescape')
        if not str_.startswith(p, '/'):
            p = getcwd() + '/' + p
        parts = []
        for part in str_.split(p, '/'):
            if part == '..':
                if parts:
                    parts.pop()
            elif part != '' and part != '.':
                parts.append(part)
        return '/' + str_.join('/', parts)

    def inside(path, roots):
        if isinstance_(path, int_):
            return True  # an already-open descriptor: its opening was checked
        try:
            p = normal(path if path is not None else '.')
        except (TypeError, ValueError):
            return False
        if p in devices:
            return True
        for r in roots:
            if p == r or str_.startswith(p, r + '/'):
                return True
        return False

    def hook(event, args):
        if str_.startswith(event, blocked_events):
            raise perm('sandbox: ' + event + ' is not allowed')
        if not guard_verdict:
            pass
        elif str_.startswith(event, frame_events):
            raise value_error('sandbox: frames are not available')
        elif event == 'object.__getattr__':
            if len_(args) > 1 and isinstance_(args[1], str_) and args[1] in blocked_attrs:
                raise attribute_error('sandbox: reading ' + args[1] + ' is not allowed')
        elif event == 'object.__setattr__' or event == 'object.__delattr__':
            # Candidates may change their own classes, never a function's code or a stdlib class.
            target = args[0] if len_(args) > 0 else None
            name = args[1] if len_(args) > 1 else None
            if name in function_attrs:
                raise perm('sandbox: changing a function is not allowed')
            if isinstance_(target, type_) and mappingproxy_get(type_dict(target), '__module__') != '__candidate__':
                raise perm('sandbox: changing a class the candidate did not write is not allowed')
        if event == 'import':
            if len_(args) > 0 and args[0] in blocked_imports:
                raise perm('sandbox: this import is not allowed')
        elif event == 'open':
            path = args[0] if len_(args) > 0 else None
            mode = args[1] if len_(args) > 1 else None
            flags = args[2] if len_(args) > 2 else 0
            writing = False
            if isinstance_(mode, str_):
                for c in 'wax+':
                    if c in mode:
                        writing = True
            if isinstance_(flags, int_) and flags & write_flags:
                writing = True
            if path is not None and not inside(path, write_roots if writing else read_roots):
                raise perm('sandbox: open outside the sandbox is not allowed')
        elif event == 'os.kill' or event == 'os.killpg':
            if len_(args) > 0 and args[0] != 0 and args[0] != own_pid:
                raise perm('sandbox: ' + event + ' is not allowed')
        elif event == 'os.symlink' or event == 'os.link':
            raise perm('sandbox: links are not allowed')
        else:
            for name, (writes, reads) in path_events:
                if event != name:
                    continue
                for k in writes:
                    if k < len_(args) and not inside(args[k], write_roots):
                        raise perm('sandbox: ' + event + ' is not allowed here')
                for k in reads:
                    if k < len_(args) and not inside(args[k], read_roots):
                        raise perm('sandbox: ' + event + ' is not allowed here')

    return hook


def disarm_frame_leaks():
    """Signal handlers receive frames; replace the only ways to install one before candidates run."""
    def refuse(*_a, **_k):
        raise PermissionError('sandbox: signal handlers are not allowed')
    import _signal
    for mod in (signal, _signal):
        for name in ('signal', 'setitimer', 'alarm', 'set_wakeup_fd', 'pthread_kill'):
            if hasattr(mod, name):
                setattr(mod, name, refuse)
    import threading
    threading.settrace = refuse
    threading.setprofile = refuse


class CappedText(io.StringIO):
    """stdout/stderr stand-in that keeps only the first OUTPUT_CAP characters."""

    def write(self, s):
        room = OUTPUT_CAP - self.tell()
        if room > 0:
            super().write(str(s)[:room])
        return len(s)


def describe(exc):
    if isinstance(exc, SyntaxError):
        return f'SyntaxError: {exc.msg} (line {exc.lineno})'
    text = str(exc)
    return f'{type(exc).__name__}: {text}'[:300] if text else type(exc).__name__


def write_all(fd, data):
    while data:
        data = data[os.write(fd, data):]


def process_cpu(pid):
    """CPU seconds (user + system, every thread, plus children it reaped) of a live or zombie
    process, or None when /proc cannot tell (the 10 ms clock tick is the resolution)."""
    try:
        with open(f'/proc/{pid}/stat', 'rb') as f:
            stat = f.read()
        fields = stat[stat.rindex(b')') + 2:].split()
        return sum(int(x) for x in fields[11:15]) / CLOCK_TICKS  # utime stime cutime cstime
    except (OSError, ValueError):
        return None


class Wall:
    """A plain wall-clock limit (for the worker's own reads, never for a candidate)."""

    def __init__(self, seconds):
        self.end = time.monotonic() + seconds

    def wait(self):
        return self.end - time.monotonic()


class Budget:
    """What one phase of a job (its probes, or its scripts) may spend: `cpu` seconds of the
    candidate process's CPU time, counted from now, and `wall` seconds of wall time as the
    backstop for a candidate that sleeps or blocks. Where /proc cannot be read, elapsed wall
    time stands in for the CPU time (the stricter rule, never a looser one)."""

    def __init__(self, pid, cpu, wall):
        self.pid, self.cpu = pid, cpu
        self.start = time.monotonic()
        self.end = self.start + wall
        self.cpu0 = process_cpu(pid)

    def used(self):
        now = process_cpu(self.pid) if self.cpu0 is not None else None
        return time.monotonic() - self.start if now is None else now - self.cpu0

    def wait(self):
        """Seconds to wait for the candidate before looking again; 0 once the budget is spent."""
        cpu_left = self.cpu - self.used()
        wall_left = self.end - time.monotonic()
        if cpu_left <= 0 or wall_left <= 0:
            return 0
        return min(wall_left, max(POLL[0], min(POLL[1], cpu_left)))

    def spent(self):
        return self.wait() <= 0


def read_line(fd, buf, limit):
    """One newline-terminated record from fd (bytes without the newline), or None on EOF, once
    `limit` (a Wall or a Budget) is spent, or on an oversized record. `buf` is a one-element
    list holding leftover bytes."""
    while True:
        nl = buf[0].find(b'\n')
        if nl >= 0:
            line, buf[0] = buf[0][:nl], buf[0][nl + 1:]
            return line
        if len(buf[0]) > RECORD_CAP:
            return None
        remaining = limit.wait()
        if remaining <= 0:
            return None
        ready, _, _ = select.select([fd], [], [], remaining)
        if not ready:
            continue
        data = os.read(fd, 65536)
        if not data:
            return None
        buf[0] += data


# --- values crossing back as data -------------------------------------------------------------

def encode_plain(value, depth=0):
    """Tagged plain JSON for a value of an exact builtin type; raises TypeError otherwise.
    Never calls a method of the value's own class (only of the exact builtin types)."""
    t = type(value)
    if depth > PLAIN_DEPTH:
        raise TypeError('value nested too deeply')
    if value is None:
        return ['none']
    if t is bool:
        return ['bool', value is True]
    if t is int:
        return ['int', int.__repr__(value)]
    if t is float:
        return ['float', float.__repr__(value)]
    if t is str:
        return ['str', value]
    if t is bytes:
        return ['bytes', bytes.hex(value)]
    if t is complex:
        return ['complex', float.__repr__(value.real), float.__repr__(value.imag)]
    if t is list or t is tuple:
        return ['list' if t is list else 'tuple', [encode_plain(v, depth + 1) for v in t.__iter__(value)]]
    if t is set or t is frozenset:
        return ['set', [encode_plain(v, depth + 1) for v in t.__iter__(value)]]
    if t is dict:
        return ['dict', [[encode_plain(k, depth + 1), encode_plain(v, depth + 1)] for k, v in dict.items(value)]]
    raise TypeError(f'returned a {t.__name__}, not plain data')


# --- the forked candidate process -------------------------------------------------------------

def enter_sandbox(tmp, limits):
    os.setsid()  # own process group: the worker can kill everything the candidate starts
    os.chdir(tmp)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    out = os.open(os.path.join(tmp, '.stdio'), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.dup2(out, 1)
    os.dup2(out, 2)
    os.close(null)
    os.close(out)
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # oversized writes raise instead of killing
    # Kernel backstop only: the worker cuts the candidate at timeoutMs of CPU (see Budget).
    cpu = int(limits['timeoutMs'] / 1000) + 1
    set_limit(resource.RLIMIT_CPU, cpu, cpu + 1)
    set_limit(resource.RLIMIT_AS, int(limits['memoryMb']) * MB)
    set_limit(resource.RLIMIT_FSIZE, 16 * MB)
    set_limit(resource.RLIMIT_CORE, 0)
    set_limit(resource.RLIMIT_NOFILE, 64)
    set_limit(resource.RLIMIT_NPROC, 32)  # ignored for uid 0, hence the privilege drop


def drop_privileges(tmp):
    if os.geteuid() == 0:
        try:
            os.chown(tmp, NOBODY, NOBODY)
            os.setgroups([])
            os.setgid(NOBODY)
            os.setuid(NOBODY)
        except OSError:
            pass  # inside bwrap's user namespace there is no other uid to become


def probe_child(req, rep, tmp):
    """Load the candidate, then answer probes one by one with tagged plain values."""
    buf = [b'']
    limits = json.loads(read_line(req, buf, Wall(3600)) or b'null')
    enter_sandbox(tmp, limits)
    drop_privileges(tmp)
    disarm_frame_leaks()
    sys.addaudithook(make_guard(tmp, os.getpid(), False))
    start = json.loads(read_line(req, buf, Wall(3600)) or b'null')
    env = {'__name__': '__candidate__', '__builtins__': __builtins__}
    out = CappedText()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            exec(compile(start['code'], 'candidate.py', 'exec'), env)
            if start.get('setup'):
                exec(compile(start['setup'], '<test setup>', 'exec'), env)
    except BaseException as exc:  # noqa: BLE001 - SystemExit and friends are candidate failures too
        write_all(rep, (json.dumps({'load': describe(exc), 'out': out.getvalue()}) + '\n').encode())
        return
    write_all(rep, (json.dumps({'load': None, 'out': out.getvalue()}) + '\n').encode())
    while True:
        line = read_line(req, buf, Wall(3600))
        if line is None:
            return
        msg = json.loads(line)
        out = CappedText()
        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
                value = eval(compile(msg['expr'], f'<probe {msg["i"]}>', 'eval'), env)
            rec = {'i': msg['i'], 'v': encode_plain(value)}
        except BaseException as exc:  # noqa: BLE001
            rec = {'i': msg['i'], 'err': describe(exc)}
        data = (json.dumps(rec) + '\n').encode()
        if len(data) > RECORD_CAP:
            data = (json.dumps({'i': msg['i'], 'err': 'value too large'}) + '\n').encode()
        write_all(rep, data)


def script_child(req, rep, tmp):
    """Set limits, then replace this process with a fresh interpreter running the harness."""
    line = b''
    while not line.endswith(b'\n'):
        ch = os.read(req, 1)  # byte by byte: what follows this line is the harness's
        if not ch:
            return
        line += ch
    enter_sandbox(tmp, json.loads(line))
    os.set_inheritable(req, True)
    os.set_inheritable(rep, True)
    os.execv(sys.executable, [sys.executable, '-s', '-B', os.path.abspath(__file__), '--harness',
                              str(req), str(rep), tmp])


PARENT_FDS = set()  # the worker's ends of every live child's pipes: no child may hold another's


def fork_child(kind):
    """Fork the candidate's process before the job is read: it never holds the job's tests."""
    req_r, req_w = os.pipe()
    rep_r, rep_w = os.pipe()
    tmp = tempfile.mkdtemp(prefix='cand-')
    pid = os.fork()
    if pid == 0:
        status = 0
        try:
            for fd in PARENT_FDS | {req_w, rep_r}:
                os.close(fd)
            (probe_child if kind == 'probe' else script_child)(req_r, rep_w, tmp)
        except BaseException:  # noqa: BLE001
            status = 70
        finally:
            os._exit(status)
    os.close(req_r)
    os.close(rep_w)
    PARENT_FDS.update((req_w, rep_r))
    return {'pid': pid, 'req': req_w, 'rep': rep_r, 'tmp': tmp, 'buf': [b'']}


def kill_tree(pid):
    for kill in (os.killpg, os.kill):
        try:
            kill(pid, signal.SIGKILL)
        except OSError:
            pass


def end_child(child, budget=None, wait=True):
    """Close the request pipe (a well-behaved child then exits on its own), wait for that while
    `budget` lasts (when given and `wait`), then kill whatever is left of its process group and
    reap it. Returns (exit status, whether the budget was spent): the budget is read before the
    reap, while /proc still has the process, and a child that exits within it was not cut."""
    PARENT_FDS.difference_update((child['req'], child['rep']))
    try:
        os.close(child['req'])
    except OSError:
        pass
    pause = 0.002
    spent = False
    while budget is not None:
        try:
            done = os.waitid(os.P_PID, child['pid'], os.WEXITED | os.WNOHANG | os.WNOWAIT)
        except ChildProcessError:
            done = True
        spent = budget.spent()
        if done or spent or not wait:
            break
        time.sleep(pause)
        pause = min(POLL[1], pause * 2)
    kill_tree(child['pid'])  # also reaps stray grandchildren that share the candidate's group
    _, status = os.waitpid(child['pid'], 0)
    try:
        os.close(child['rep'])
    except OSError:
        pass
    shutil.rmtree(child['tmp'], ignore_errors=True)
    return status, spent


def exit_info(status):
    if os.WIFSIGNALED(status):
        return f'killed by {signal.Signals(os.WTERMSIG(status)).name}'
    if os.WEXITSTATUS(status) != 0:
        return f'exited with status {os.WEXITSTATUS(status)}'
    return None


def send_to(child, obj):
    try:
        write_all(child['req'], (json.dumps(obj) + '\n').encode())
        return True
    except OSError:
        return False


def read_record(child, budget):
    """The child's next record as a dict, 'malformed', or None (it ended or its budget is spent).
    An oversized record is malformed: the child is then killed at once, not waited for."""
    line = read_line(child['rep'], child['buf'], budget)
    if line is None and len(child['buf'][0]) > RECORD_CAP:
        return 'malformed'
    return parse_record(line)


def parse_record(line):
    if line is None:
        return None
    try:
        msg = json.loads(line)
    except ValueError:
        return 'malformed'
    return msg if type(msg) is dict else 'malformed'


def read_load(child, budget, hexed=False):
    """The first record must be {"load": null|str, "out": str}; anything else is a violation.
    The harness hex-encodes both texts (it writes them without the json module)."""
    rec = read_record(child, budget)
    if rec is None:
        return 'candidate process ended before reporting', None
    if rec == 'malformed' or set(rec) != {'load', 'out'} or not (rec['load'] is None or type(rec['load']) is str):
        return 'candidate process ended before reporting', 'unexpected record before the candidate loaded'
    load = rec['load']
    if hexed and load is not None:
        try:
            load = bytes.fromhex(load).decode('utf-8', 'replace')
        except ValueError:
            return 'candidate process ended before reporting', 'malformed load record'
    return load, None


def run_probes(job, child, budget, reply):
    send_to(child, {'timeoutMs': job['timeoutMs'], 'memoryMb': job['memoryMb']})
    send_to(child, {'code': job['code'], 'setup': job.get('setup') or ''})
    load, violation = read_load(child, budget)
    reply['load'], reply['violation'] = load, violation
    results = [None] * len(job['probes'])
    if load is None and violation is None:
        for i, expr in enumerate(job['probes']):
            if not send_to(child, {'i': i, 'expr': expr}):
                break
            rec = read_record(child, budget)
            if rec is None:
                break
            if rec == 'malformed' or rec.get('i') != i or len(rec) != 2 or not ('v' in rec or type(rec.get('err')) is str):
                reply['violation'] = f'unexpected record for probe {i}'
                break
            results[i] = {'v': rec['v']} if 'v' in rec else {'err': rec['err'][:OUTPUT_CAP]}
    reply['probes'] = results


def run_scripts(job, child, budget, reply):
    send_to(child, {'timeoutMs': job['timeoutMs'], 'memoryMb': job['memoryMb']})
    send_to(child, {'code': job['code']})
    load, violation = read_load(child, budget, hexed=True)
    if reply.get('load') is None:
        reply['load'] = load
    reply['violation'] = reply.get('violation') or violation
    results = [None] * len(job['scripts'])
    if load is None and violation is None:
        for i, test in enumerate(job['scripts']):
            nonce = os.urandom(16).hex()
            request = f'{i} {nonce} {test.encode().hex()}\n'.encode()
            try:
                write_all(child['req'], request)
            except OSError:
                break
            rec = read_record(child, budget)
            if rec is None:
                break
            if (rec == 'malformed' or set(rec) != {'i', 'ok', 'out', 'nonce'} or rec['i'] != i
                    or rec['nonce'] != nonce or type(rec['ok']) is not bool or type(rec['out']) is not str):
                reply['violation'] = f'forged or malformed record for test {i}'
                break
            try:
                out = bytes.fromhex(rec['out']).decode('utf-8', 'replace')
            except ValueError:
                reply['violation'] = f'malformed output for test {i}'
                break
            results[i] = {'ok': rec['ok'], 'out': out[:OUTPUT_CAP]}
    reply['scripts'] = results


def run_job(job, children):
    reply = {'id': job['id'], 'load': None, 'probes': [], 'scripts': [], 'timedOut': False, 'exit': None, 'violation': None}
    wall = job.get('wallMs') or WALL_FACTOR * job['timeoutMs']
    for kind, runner in (('probe', run_probes), ('script', run_scripts)):
        child = children.pop(kind)
        if not job.get(kind + 's'):
            end_child(child)
            continue
        budget = Budget(child['pid'], job['timeoutMs'] / 1000, wall / 1000)
        runner(job, child, budget, reply)
        # The child may finish exiting on the same budget (its exit status is part of the
        # verdict); a protocol breaker is killed at once, its records are void anyway.
        status, timed_out = end_child(child, budget, wait=reply['violation'] is None)
        reply['timedOut'] = reply['timedOut'] or timed_out
        if not timed_out and reply['exit'] is None:
            reply['exit'] = exit_info(status)
    return reply


def reap_orphans():
    # As PID 1 of a namespace this worker inherits the candidates' orphans; collect the zombies.
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def serve_one(children, buf):
    line = read_line(0, buf, Wall(10 ** 9))
    if line is None:
        return False
    job = None
    try:
        job = json.loads(line)
        reply = run_job(job, children)
    except Exception as exc:  # noqa: BLE001 - a malformed job must not end the worker
        reply = {'id': job.get('id') if isinstance(job, dict) else None, 'error': describe(exc)}
    send(reply)
    return True


def main():
    send({'ready': True, 'pid': os.getpid(), 'uid': os.getuid(), 'python': sys.version.split()[0]})
    buf = [b'']
    while True:
        # Fork the next job's processes while no job is in memory (serve_one's locals are gone).
        children = {'probe': fork_child('probe'), 'script': fork_child('script')}
        more = serve_one(children, buf)
        for child in children.values():
            end_child(child)
        reap_orphans()
        if not more:
            return


# --- the fresh-interpreter harness for script tests -------------------------------------------

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
    if len(sys.argv) == 5 and sys.argv[1] == '--harness':
        harness(int(sys.argv[2]), int(sys.argv[3]), sys.argv[4])
        os._exit(0)
    main()
