"""EvoChamber code-sandbox worker: a long-lived process that runs untrusted candidates.

Protocol with Node: one JSON job per stdin line {id, code, setup, probes, calls, timeoutMs,
wallMs, memoryMb}; one JSON reply per stdout line {id, load, probes, timedOut, exit, violation,
touched} (`touched`: the sources of nondeterminism the candidate's processes noted, each asked
with {"end": true} once its part is over: sandbox_nondeterminism.py).
The first line written is {"ready": true}. A job with `calls` is interactive: the worker says
{id, loaded: {load, names}}, then answers each {id, call} from Node with {id, ret, out} until
Node sends {id, end: true}; only then comes the final reply.

Time limit: the probes and the calls each get `timeoutMs` of CPU time (user + system, all
threads of the candidate's process, read from /proc/<pid>/stat), so a busy machine slows a
candidate down without failing it: the same candidate gets the same verdict on an idle host and
on a loaded one. Wall time is only a backstop (`wallMs`, by default WALL_FACTOR x timeoutMs) for
candidates that sleep or block; one cut there is a timeout too, the candidate's own doing.
RLIMIT_CPU stays as the kernel's backstop.

No verdict is computed here, nor anywhere the candidate runs (docs/sandbox-threat-model.md):
- Probe tests (`probes`, calls such as `add(1, 2)` as {fn, args, kwargs}): the candidate runs in a
  forked child created BEFORE the job is read. Probes are sent one at a time; every value returns
  as tagged plain JSON (exact types) and Node applies the test's operator and compares with the
  expected value, which never enters the sandbox. No expression is evaluated here.
- Every other test (loops of asserts, HumanEval check(), stdin/stdout) runs in the checker
  (sandbox_checker.py), a trusted process outside this sandbox. Each call the test makes to a
  candidate function reaches the candidate's own forked child (`call_child`) as plain data,
  through Node and this worker; the answer, and what the call printed, go back as plain data.
This worker holds no expected value and no verdict: a candidate that took it over could only
answer its own calls, which it does anyway.

Containment: bubblewrap around this worker (set up by the Node side) when the host has it; per
candidate, a fresh process forked ahead (two spares, forked between jobs: see `top_up`) and
confined by sandbox_policy.py (session, temp dir, rlimits, privilege drop, audit hook) once it
learns its part, before it reads the candidate's code.
"""
import json
import os
import select
import shutil
import signal
import sys
import tempfile
import time

# The policy sits next to this script: import it, then never let candidates import files that sit
# next to this script (its audit hook also refuses to open them), then preload their modules.
from sandbox_policy import MB, confine, preload  # noqa: E402
from sandbox_nondeterminism import Watch  # noqa: E402

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if p and os.path.abspath(p) != _HERE]
preload()
import contextlib  # noqa: E402
import io  # noqa: E402

WALL_FACTOR = 10  # wall backstop when a job does not send wallMs: this many times timeoutMs
POLL = (0.01, 0.05)  # shortest and longest wait between two looks at the candidate's CPU time
CLOCK_TICKS = os.sysconf('SC_CLK_TCK')
# The harness's own clock, bound before a candidate's Watch wraps time.monotonic: the child's own
# reads of its request pipe never count as the candidate reading the clock.
MONOTONIC = time.monotonic
OUTPUT_CAP = 2000
RECORD_CAP = 4 * MB
CALL_OUTPUT_CAP = 1 * MB  # what a call may print (a stdin/stdout test's answer)
PLAIN_DEPTH = 100
NOT_PLAIN = 'NotPlainData'  # the etype of an answer that is not plain data (sandbox_checker.py)


def send(obj):
    sys.stdout.buffer.write(json.dumps(obj).encode() + b'\n')
    sys.stdout.buffer.flush()


class CappedText(io.StringIO):
    """stdout/stderr stand-in that keeps only the first `cap` characters."""

    def __init__(self, cap=OUTPUT_CAP):
        super().__init__()
        self.cap = cap

    def write(self, s):
        room = self.cap - self.tell()
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
    """CPU seconds (user + system, every thread) of a live or zombie process, or None when the
    kernel cannot tell. Read from the process's CPU clock (clock_gettime of its
    MAKE_PROCESS_CPUCLOCK id, nanoseconds, no /proc needed: the fallback's Landlock wall has none),
    else from /proc/<pid>/stat (10 ms ticks, plus children it reaped)."""
    try:
        return time.clock_gettime(((~pid) << 3) | 2)
    except (OSError, OverflowError):
        pass
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
        self.end = MONOTONIC() + seconds

    def wait(self):
        return self.end - MONOTONIC()


class Budget:
    """What one phase of a job (its probes, or its scripts) may spend: `cpu` seconds of the
    candidate process's CPU time, counted from now, and `wall` seconds of wall time as the
    backstop for a candidate that sleeps or blocks. Where /proc cannot be read, elapsed wall
    time stands in for the CPU time (the stricter rule, never a looser one)."""

    def __init__(self, pid, cpu, wall):
        self.pid, self.cpu = pid, cpu
        self.start = MONOTONIC()
        self.end = self.start + wall
        self.cpu0 = process_cpu(pid)

    def used(self):
        now = process_cpu(self.pid) if self.cpu0 is not None else None
        return MONOTONIC() - self.start if now is None else now - self.cpu0

    def wait(self):
        """Seconds to wait for the candidate before looking again; 0 once the budget is spent."""
        cpu_left = self.cpu - self.used()
        wall_left = self.end - MONOTONIC()
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

# Iterators a function may return (a test then reads them with list(), sorted(), set(), ...).
ITERATOR_TYPES = tuple({type(x) for x in (
    iter([]), iter(()), iter(''), iter(range(0)), iter(set()), iter({}), iter({}.values()), iter({}.items()),
    (x for x in ()), map(abs, ()), filter(None, ()), zip(), enumerate(()), reversed([]), reversed(range(0)))})
DICT_VIEWS = {type({}.keys()): 'keys', type({}.values()): 'values', type({}.items()): 'items'}
MAX_ITEMS = 10 ** 6


import decimal  # noqa: E402
import fractions  # noqa: E402
import re  # noqa: E402

FRACTION, DECIMAL = fractions.Fraction, decimal.Decimal
DECIMAL_BITS = 14000  # larger ints cross as hex (linear, no int_max_str_digits): trusted_plain.py
INT_BITS = 1 << 20  # an int past this is not plain data (the checker never parses a giant)
SURROGATE = re.compile('[\ud800-\udfff]')
# Builtin types whose subclasses cross as their builtin data (an IntEnum member as its int, a
# namedtuple as its tuple, a Counter or OrderedDict as its dict), read by the builtin's own C slots:
# the subclass's methods are never called, and the checker compares the data with Python's ==.
DATA_BASES = (int, float, complex, str, bytes, tuple, list, frozenset, set, dict)


def encode_int(value):
    if int.bit_length(value) <= DECIMAL_BITS:
        return ['int', int.__repr__(value)]
    if int.bit_length(value) > INT_BITS:
        raise TypeError(f'returned an int of more than {INT_BITS} bits')
    text = int.__format__(value, 'x')
    return ['int', '-0x' + text[1:] if text[:1] == '-' else '0x' + text]


def encode_str(value):
    # JSON merges a surrogate pair with the astral character it spells: such strings cross as code points.
    if SURROGATE.search(value) is None:
        return ['str', value]
    return ['strcp', [ord(c) for c in value]]


def data_type(t):
    """The builtin type whose data a value of type `t` crosses as, or None."""
    if t in DATA_BASES or t is bool or t is FRACTION or t is DECIMAL:
        return t
    for base in DATA_BASES:
        if type.__subclasscheck__(base, t):
            return base
    return None


def encode_plain(value, depth=0, wide=False):
    """Tagged plain JSON for a value of a builtin type (or a subclass's builtin data), Fraction or
    Decimal; raises TypeError otherwise. Never calls a method of the value's own class (only the
    builtin types' own slots). `wide` (answers to calls) also takes ranges, dict views and builtin
    iterators, which cross as their own tags (an iterator as the items it yields), never as lists."""
    t = type(value)
    if depth > PLAIN_DEPTH:
        raise TypeError('value nested too deeply')
    if value is None:
        return ['none']
    b = data_type(t)
    if b is bool:
        return ['bool', value is True]
    if b is int:
        return encode_int(value)
    if b is float:
        return ['float', float.__repr__(value)]
    if b is str:
        return encode_str(str.__str__(value))
    if b is bytes:
        return ['bytes', bytes.hex(value)]
    if b is complex:
        return ['complex', float.__repr__(complex.real.__get__(value)), float.__repr__(complex.imag.__get__(value))]
    if b is FRACTION:
        return ['fraction', encode_int(int(value.numerator))[1], encode_int(int(value.denominator))[1]]
    if b is DECIMAL:
        return ['decimal', DECIMAL.__str__(value)]
    if b is list or b is tuple:
        return ['list' if b is list else 'tuple', [encode_plain(v, depth + 1, wide) for v in b.__iter__(value)]]
    if b is set or b is frozenset:
        return ['set', [encode_plain(v, depth + 1, wide) for v in b.__iter__(value)]]
    if b is dict:
        return ['dict', [[encode_plain(k, depth + 1, wide), encode_plain(v, depth + 1, wide)] for k, v in dict.items(value)]]
    if wide and t is range:
        return ['range', int.__repr__(value.start), int.__repr__(value.stop), int.__repr__(value.step)]
    if wide and t in DICT_VIEWS:
        return [DICT_VIEWS[t], [encode_plain(v, depth + 1, wide) for v in t.__iter__(value)]]
    if wide and t in ITERATOR_TYPES:
        items = []
        for v in value:
            if len(items) >= MAX_ITEMS:
                raise TypeError('returned an iterator of more than a million items')
            items.append(encode_plain(v, depth + 1, wide))
        return ['iter', items]
    raise TypeError(f'returned a {t.__name__}')


def exception_bases(exc):
    """Names of the builtin exception classes the candidate's exception derives from, nearest first."""
    try:
        return [c.__name__ for c in type.__getattribute__(type(exc), '__mro__')[1:]
                if type(c) is type and c.__module__ == 'builtins' and issubclass(c, BaseException)][:8]
    except Exception:  # noqa: BLE001
        return []


# --- the forked candidate process -------------------------------------------------------------

def wait_end(req, rep, buf, watch):
    """After a failed load: answer the worker's {"end"} with what the load touched, then return."""
    while True:
        line = read_line(req, buf, Wall(3600))
        if line is None:
            return
        if json.loads(line).get('end') is True:
            return report_touched(rep, watch)


def report_touched(rep, watch):
    """The child's last record: the sources of nondeterminism its candidate touched (the worker asks
    with {"end": true}; the grader runs the program again when there are any)."""
    write_all(rep, (json.dumps({'touched': watch.touched()}) + '\n').encode())


def probe_child(req, rep, buf, tmp, watch):
    """Load the candidate, then answer probes one by one: each is a call {"i", "fn", "args",
    "kwargs"} of one of its functions with plain arguments, answered with a tagged plain value.
    Nothing is evaluated here but the call itself: the operator the test applies to the answer is
    applied in Node, on the plain data. Runs once `confine` is in (see `candidate_process`)."""
    start = json.loads(read_line(req, buf, Wall(3600)) or b'null')
    env = {'__name__': '__candidate__', '__builtins__': __builtins__}
    out = CappedText()
    watch.start()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            exec(compile(start['code'], 'candidate.py', 'exec'), env)
            if start.get('setup'):
                exec(compile(start['setup'], '<test setup>', 'exec'), env)
    except BaseException as exc:  # noqa: BLE001 - SystemExit and friends are candidate failures too
        write_all(rep, (json.dumps({'load': describe(exc), 'out': out.getvalue()}) + '\n').encode())
        return wait_end(req, rep, buf, watch)
    write_all(rep, (json.dumps({'load': None, 'out': out.getvalue()}) + '\n').encode())
    while True:
        line = read_line(req, buf, Wall(3600))
        if line is None:
            return
        msg = json.loads(line)
        if msg.get('end') is True:
            return report_touched(rep, watch)
        out = CappedText()
        try:
            if msg['fn'] not in env:
                raise NameError(f"name '{msg['fn']}' is not defined")
            fn = env[msg['fn']]
            args = [decode_plain(a) for a in msg['args']]
            kwargs = {k: decode_plain(v) for k, v in msg['kwargs']}
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
                value = fn(*args, **kwargs)
        except BaseException as exc:  # noqa: BLE001
            rec = {'i': msg['i'], 'err': describe(exc)}
        else:
            try:
                rec = {'i': msg['i'], 'v': encode_plain(value, 0, True)}
            except (TypeError, ValueError, RecursionError) as exc:
                rec = {'i': msg['i'], 'err': f'not plain data: {msg["fn"]}() {exc}'}
        data = (json.dumps(rec) + '\n').encode()
        if len(data) > RECORD_CAP:
            data = (json.dumps({'i': msg['i'], 'err': 'value too large'}) + '\n').encode()
        write_all(rep, data)


def decode_plain(raw, depth=0):
    """Values from the checker's tagged arguments (the task's own test data)."""
    tag, rest = raw[0], raw[1:]
    if depth > PLAIN_DEPTH:
        raise ValueError('argument nested too deeply')
    if tag == 'none':
        return None
    if tag == 'bool':
        return bool(rest[0])
    if tag == 'int':
        return int(rest[0], 16) if 'x' in rest[0] else int(rest[0])
    if tag == 'float':
        return float(rest[0])
    if tag == 'str':
        return str(rest[0])
    if tag == 'strcp':
        return ''.join(chr(c) for c in rest[0])
    if tag == 'fraction':
        return FRACTION(int(rest[0], 0), int(rest[1], 0))
    if tag == 'decimal':
        return DECIMAL(rest[0])
    if tag == 'bytes':
        return bytes.fromhex(rest[0])
    if tag == 'complex':
        return complex(float(rest[0]), float(rest[1]))
    if tag in ('list', 'tuple', 'set'):
        items = [decode_plain(v, depth + 1) for v in rest[0]]
        return items if tag == 'list' else tuple(items) if tag == 'tuple' else set(items)
    if tag == 'dict':
        return {decode_plain(k, depth + 1): decode_plain(v, depth + 1) for k, v in rest[0]}
    raise ValueError('unknown tag ' + str(tag))


def call_child(req, rep, buf, tmp, watch):
    """Load the candidate, list the names it defines, then answer the checker's calls one by one:
    {"n", "fn", "args", "kwargs", "stdin"} in, {"n", "v"|"err"+"etype", "out"} out, plain data only.
    This process never holds a test: the tests run in the checker, in another process tree.
    Runs once `confine` is in (see `candidate_process`)."""
    start = json.loads(read_line(req, buf, Wall(3600)) or b'null')
    env = {'__name__': '__candidate__', '__builtins__': __builtins__}
    out = CappedText()
    load = None
    watch.start()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            exec(compile(start['code'], 'candidate.py', 'exec'), env)
    except BaseException as exc:  # noqa: BLE001
        load = describe(exc)
    names, values = [], {}
    for k, v in list(env.items())[:1000]:
        if type(k) is not str or k.startswith('__'):
            continue
        if type(v) is type(sys):
            values[k] = ['module', str(getattr(v, '__name__', ''))]  # the checker imports its own copy
        elif callable(v):
            names.append(k)
        else:
            try:  # a constant the tests may read (`N`, `MOD`): its value, as plain data
                values[k] = encode_plain(v)
            except (TypeError, ValueError, RecursionError):
                pass
    rec = json.dumps({'load': load, 'out': out.getvalue(), 'names': names, 'values': values})
    if len(rec) > RECORD_CAP:
        rec = json.dumps({'load': load, 'out': '', 'names': names, 'values': {}})
    write_all(rep, (rec + '\n').encode())
    if load is not None:
        return wait_end(req, rep, buf, watch)
    saved_fds = (os.dup(0), os.dup(1))  # /dev/null and the child's .stdio, put back after each call
    while True:
        line = read_line(req, buf, Wall(3600))
        if line is None:
            return
        msg = json.loads(line)
        if msg.get('end') is True:
            return report_touched(rep, watch)
        # The call's stdin and stdout are real files in its temp dir on fds 0 and 1, so a stdin
        # program may read sys.stdin(.buffer), input() or open(0), and write with print,
        # sys.stdout.buffer or os.write(1, ...): what the call wrote, in order, is its answer to a
        # stdin/stdout test.
        out = call_stdio(tmp, (msg.get('stdin') or '').encode('utf-8', 'surrogatepass'))
        saved_in = sys.stdin
        try:
            fn = env[msg['fn']]
            args = [decode_plain(a) for a in msg['args']]
            kwargs = {k: decode_plain(v) for k, v in msg['kwargs']}
            sys.stdin = io.TextIOWrapper(io.FileIO(0, 'r', closefd=False), encoding='utf-8')
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
                value = fn(*args, **kwargs)
        except BaseException as exc:  # noqa: BLE001 - SystemExit from main() is an answer too
            rec = {'n': msg['n'], 'err': describe(exc), 'etype': type(exc).__name__, 'ebases': exception_bases(exc)}
        else:
            try:
                rec = {'n': msg['n'], 'v': encode_plain(value, 0, True)}
            except (TypeError, ValueError, RecursionError) as exc:
                # Not an exception the test may catch: the checker fails the test (NOT_PLAIN).
                rec = {'n': msg['n'], 'err': f'not plain data: {msg["fn"]}() {exc}', 'etype': NOT_PLAIN}
        sys.stdin = saved_in
        rec['out'] = call_output(out, saved_fds).decode('utf-8', 'replace')
        data = (json.dumps(rec) + '\n').encode()
        if len(data) > RECORD_CAP:
            data = (json.dumps({'n': msg['n'], 'err': 'value too large', 'etype': 'MemoryError', 'out': ''}) + '\n').encode()
        write_all(rep, data)


def call_stdio(tmp, stdin):
    """Put a file holding `stdin` on fd 0 and an empty file on fd 1 (both in the candidate's temp
    dir); returns the text stream for the call's sys.stdout, writing through to fd 1."""
    for fd, name, data in ((0, '.call-stdin', stdin), (1, '.call-stdout', b'')):
        f = os.open(os.path.join(tmp, name), os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o600)
        write_all(f, data)
        os.lseek(f, 0, os.SEEK_SET)
        os.dup2(f, fd)
        os.close(f)
    return io.TextIOWrapper(io.FileIO(1, 'w', closefd=False), encoding='utf-8', errors='replace', write_through=True)


def call_output(out, saved_fds):
    """What the call wrote to fd 1 (its first CALL_OUTPUT_CAP bytes); fds 0 and 1 put back."""
    try:
        out.flush()
    except BaseException:  # noqa: BLE001 - a candidate may have closed or broken it
        pass
    data = b''
    try:
        os.lseek(1, 0, os.SEEK_SET)
        while len(data) < CALL_OUTPUT_CAP:
            chunk = os.read(1, CALL_OUTPUT_CAP - len(data))
            if not chunk:
                break
            data += chunk
    except OSError:
        pass
    os.dup2(saved_fds[0], 0)
    os.dup2(saved_fds[1], 1)
    return data


PARENT_FDS = set()  # the worker's ends of every live child's pipes: no child may hold another's
PARTS = {'probe': probe_child, 'call': call_child}
# A job needs at most two candidate processes (one for its probes, one for its calls); the worker
# keeps this many forked ahead, so every process a job uses was forked before the job was read.
SPARES = 2


def candidate_process(req, rep, tmp):
    """A fresh forked process, waiting for its first record: the part it plays in a job ("probe" or
    "call") and the job's limits. It confines itself before it reads the candidate's code."""
    buf = [b'']
    first = json.loads(read_line(req, buf, Wall(10 ** 9)) or b'null')
    if type(first) is not dict or first.get('part') not in PARTS:
        return 0  # never used (the worker is ending): nothing ran here
    watch = Watch()
    confine(tmp, first, watch.hook)  # the audit hook is in before any candidate code is read
    PARTS[first['part']](req, rep, buf, tmp, watch)
    return 0


def fork_child():
    """Fork a candidate's process while no job is in memory: it never holds a job's tests, and no
    candidate ran in it before. Each has its own pipes and its own temp dir."""
    req_r, req_w = os.pipe()
    rep_r, rep_w = os.pipe()
    tmp = tempfile.mkdtemp(prefix='cand-')
    pid = os.fork()
    if pid == 0:
        status = 0
        try:
            for fd in PARENT_FDS | {req_w, rep_r}:
                os.close(fd)
            status = candidate_process(req_r, rep_w, tmp)
        except BaseException:  # noqa: BLE001
            status = 70
        finally:
            os._exit(status)
    os.close(req_r)
    os.close(rep_w)
    PARENT_FDS.update((req_w, rep_r))
    return {'pid': pid, 'req': req_w, 'rep': rep_r, 'tmp': tmp, 'buf': [b'']}


def alive(child):
    """True while a spare has not exited (something outside may have killed it while it waited)."""
    try:
        return os.waitid(os.P_PID, child['pid'], os.WEXITED | os.WNOHANG | os.WNOWAIT) is None
    except ChildProcessError:
        return False


def top_up(spares):
    """Replace spares that died while waiting, then fork up to SPARES (called between jobs)."""
    for child in [c for c in spares if not alive(c)]:
        spares.remove(child)
        end_child(child)
    while len(spares) < SPARES:
        spares.append(fork_child())


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
    try:
        _, status = os.waitpid(child['pid'], 0)
    except ChildProcessError:  # a spare that died while waiting, already collected by reap_orphans
        status = signal.SIGKILL
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


def read_load(child, budget):
    """The first record must be {"load": null|str, "out": str}; anything else is a violation."""
    rec = read_record(child, budget)
    if rec is None:
        return 'candidate process ended before reporting', None
    if rec == 'malformed' or set(rec) != {'load', 'out'} or not (rec['load'] is None or type(rec['load']) is str):
        return 'candidate process ended before reporting', 'unexpected record before the candidate loaded'
    load = rec['load']
    return load, None


def run_probes(job, child, budget, reply):
    send_to(child, {'part': 'probe', 'timeoutMs': job['timeoutMs'], 'memoryMb': job['memoryMb']})
    send_to(child, {'code': job['code'], 'setup': job.get('setup') or ''})
    load, violation = read_load(child, budget)
    reply['load'], reply['violation'] = load, violation
    results = [None] * len(job['probes'])
    if load is None and violation is None:
        for i, probe in enumerate(job['probes']):
            if not send_to(child, {'i': i, 'fn': probe['fn'], 'args': probe['args'], 'kwargs': probe['kwargs']}):
                break
            rec = read_record(child, budget)
            if rec is None:
                break
            if rec == 'malformed' or rec.get('i') != i or len(rec) != 2 or not ('v' in rec or type(rec.get('err')) is str):
                reply['violation'] = f'unexpected record for probe {i}'
                break
            results[i] = {'v': rec['v']} if 'v' in rec else {'err': rec['err'][:OUTPUT_CAP]}
    reply['probes'] = results


def run_calls(job, child, budget, reply):
    """Load the candidate, tell Node its names, then relay Node's calls (from the checker) to it
    and its answers back, until Node says the tests are done. Answers are checked for shape
    only: the candidate's answers are data, and the verdict is the checker's."""
    send_to(child, {'part': 'call', 'timeoutMs': job['timeoutMs'], 'memoryMb': job['memoryMb']})
    send_to(child, {'code': job['code']})
    rec = read_record(child, budget)
    gone = None
    names, values = [], {}
    if rec is None:
        load = 'candidate process ended before reporting'
    elif rec == 'malformed' or set(rec) != {'load', 'out', 'names', 'values'} or not (rec['load'] is None or type(rec['load']) is str) \
            or type(rec['names']) is not list or not all(type(n) is str for n in rec['names']) or type(rec['values']) is not dict:
        load, reply['violation'] = 'candidate process ended before reporting', 'unexpected record before the candidate loaded'
    else:
        load, names, values = rec['load'], rec['names'], rec['values']
    if reply.get('load') is None:
        reply['load'] = load
    send({'id': job['id'], 'loaded': {'load': load, 'names': names, 'values': values}})
    n = 0
    while True:
        line = read_line(0, STDIN_BUF, Wall(10 ** 9))
        if line is None:
            raise EOFError('Node closed the worker during a job')
        msg = json.loads(line)
        if msg.get('end') is True:
            return
        call = msg['call']
        ret = None
        if gone is None and load is None:
            if not send_to(child, {'n': n, 'fn': call['fn'], 'args': call['args'], 'kwargs': call['kwargs'], 'stdin': call.get('stdin')}):
                gone = 'ended'
            else:
                rec = read_record(child, budget)
                if rec is None:
                    gone = 'timed out' if budget.spent() else 'ended'
                elif rec == 'malformed' or rec.get('n') != n or type(rec.get('out')) is not str or not (
                        set(rec) == {'n', 'v', 'out'} or (set(rec) in ({'n', 'err', 'etype', 'out'}, {'n', 'err', 'etype', 'ebases', 'out'})
                                                          and type(rec['err']) is str and type(rec['etype']) is str)):
                    gone = 'broke the protocol'
                    reply['violation'] = f'unexpected record for call {n}'
                else:
                    ret = {'v': rec['v']} if 'v' in rec else {'err': rec['err'][:OUTPUT_CAP], 'etype': rec['etype'][:100]}
                    if type(rec.get('ebases')) is list:
                        ret['ebases'] = [b[:100] for b in rec['ebases'][:8] if type(b) is str]
                    out = rec['out'][:CALL_OUTPUT_CAP]
        n += 1
        if ret is None:
            ret, out = {'gone': gone or 'did not load'}, ''
        send({'id': job['id'], 'ret': ret, 'out': out})


SOURCE = re.compile(r'[a-z]{1,20}')


def ask_touched(child, budget, violation):
    """What the child's candidate touched (sandbox_nondeterminism.py), asked once its part is over;
    {'unreported'} when it cannot say (it ended, broke the protocol, or answered out of shape): the
    grader then runs it again, as it does for any source."""
    if violation is not None or budget.spent() or not send_to(child, {'end': True}):
        return {'unreported'}
    rec = read_record(child, budget)
    if type(rec) is not dict or set(rec) != {'touched'} or type(rec['touched']) is not list or len(rec['touched']) > 8 \
            or not all(type(t) is str and SOURCE.fullmatch(t) for t in rec['touched']):
        return {'unreported'}
    return set(rec['touched'])


def run_job(job, spares):
    """Run the job's probes, then its calls, each in a spare process of its own (forked before the
    job was read); a part the job does not have leaves its spare for the next job, untouched.
    `touched`: the sources of nondeterminism the candidate touched in either part."""
    reply = {'id': job['id'], 'load': None, 'probes': [], 'timedOut': False, 'exit': None, 'violation': None, 'touched': []}
    touched = set()
    wall = job.get('wallMs') or WALL_FACTOR * job['timeoutMs']
    for kind, runner in (('probe', run_probes), ('call', run_calls)):
        if not job.get(kind + 's'):
            continue
        child = spares.pop(0)
        budget = Budget(child['pid'], job['timeoutMs'] / 1000, wall / 1000)
        try:
            runner(job, child, budget, reply)
            touched |= ask_touched(child, budget, reply['violation'])
        except BaseException:
            end_child(child)  # Node went away mid-job: the candidate's process ends with it
            raise
        # The child may finish exiting on the same budget (its exit status is part of the
        # verdict); a protocol breaker is killed at once, its records are void anyway.
        status, timed_out = end_child(child, budget, wait=reply['violation'] is None)
        reply['timedOut'] = reply['timedOut'] or timed_out
        if not timed_out and reply['exit'] is None:
            reply['exit'] = exit_info(status)
    reply['touched'] = sorted(touched)
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


STDIN_BUF = [b'']


def serve_one(spares):
    line = read_line(0, STDIN_BUF, Wall(10 ** 9))
    if line is None:
        return False
    job = None
    try:
        job = json.loads(line)
        reply = run_job(job, spares)
    except Exception as exc:  # noqa: BLE001 - a malformed job must not end the worker
        reply = {'id': job.get('id') if isinstance(job, dict) else None, 'error': describe(exc)}
    send(reply)
    return True


def main():
    send({'ready': True, 'pid': os.getpid(), 'uid': os.getuid(), 'python': sys.version.split()[0]})
    spares = []
    while True:
        # Fork the next job's processes while no job is in memory (serve_one's locals are gone).
        top_up(spares)
        more = serve_one(spares)
        reap_orphans()
        if not more:
            for child in spares:
                end_child(child)
            return


if __name__ == '__main__':
    main()
