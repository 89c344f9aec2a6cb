"""EvoChamber code sandbox, the worker: a long-lived process that runs untrusted candidates.

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
Script tests run in sandbox_harness.py; what a candidate's process may do is sandbox_policy.py.
The three ship together in this directory (bound read-only at /opt/evochamber under bubblewrap).
"""
import json
import os
import select
import shutil
import signal
import sys
import tempfile
import time

# The sandbox's modules sit next to this file: import the policy (which preloads the modules
# candidates get), then take the directory off the path so candidates cannot import files that sit here.
_HERE = os.path.dirname(os.path.abspath(__file__))
import contextlib  # noqa: E402
from sandbox_policy import MB, OUTPUT_CAP, CappedText, describe, drop_privileges, enter_sandbox, make_guard, disarm_frame_leaks  # noqa: E402,F401
sys.path[:] = [p for p in sys.path if p and os.path.abspath(p) != _HERE]
HARNESS = os.path.join(_HERE, 'sandbox_harness.py')

WALL_FACTOR = 10  # wall backstop when a job does not send wallMs: this many times timeoutMs
POLL = (0.01, 0.05)  # shortest and longest wait between two looks at the candidate's CPU time
CLOCK_TICKS = os.sysconf('SC_CLK_TCK')
RECORD_CAP = 4 * MB
PLAIN_DEPTH = 100


def send(obj):
    sys.stdout.buffer.write(json.dumps(obj).encode() + b'\n')
    sys.stdout.buffer.flush()


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
    os.execv(sys.executable, [sys.executable, '-s', '-B', HARNESS, str(req), str(rep), tmp])


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



if __name__ == '__main__':
    main()
