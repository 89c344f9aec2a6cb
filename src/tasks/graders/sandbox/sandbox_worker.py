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
  candidate function reaches the candidate's own forked child (`call_child`, sandbox_calls.py)
  as plain data, through Node and this worker; the answer, and what the call printed, go back as
  plain data. Handles (objects, lazy generators, call-backs to a test's functions, mutated
  arguments: sandbox_calls.py) cross the same relay; a call-back {cb} answered by Node's {cbret}.
This worker holds no expected value and no verdict: a candidate that took it over could only
answer its own calls, which it does anyway.

Containment: bubblewrap around this worker (set up by the Node side) when the host has it; per
candidate, a fresh process forked ahead (two spares, forked between jobs: see `top_up`) and
confined by sandbox_policy.py (session, temp dir, rlimits, privilege drop, audit hook) once it
learns its part, before it reads the candidate's code.
"""
import json
import os
import re
import shutil
import signal
import sys
import tempfile
import time

# The policy sits next to this script: import it, then never let candidates import files that sit
# next to this script (its audit hook also refuses to open them), then preload their modules.
from sandbox_policy import confine, preload  # noqa: E402
from sandbox_nondeterminism import Watch  # noqa: E402
from sandbox_wire import (CALL_OUTPUT_CAP, CappedText, MONOTONIC, OUTPUT_CAP, RECORD_CAP, Wall, decode_plain, describe,  # noqa: E402
                          encode_plain, read_line, report_touched, wait_end, write_all)
from sandbox_calls import call_child  # noqa: E402

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if p and os.path.abspath(p) != _HERE]
preload()
import contextlib  # noqa: E402

WALL_FACTOR = 10  # wall backstop when a job does not send wallMs: this many times timeoutMs
POLL = (0.01, 0.05)  # shortest and longest wait between two looks at the candidate's CPU time
CLOCK_TICKS = os.sysconf('SC_CLK_TCK')


def send(obj):
    sys.stdout.buffer.write(json.dumps(obj).encode() + b'\n')
    sys.stdout.buffer.flush()


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


# --- the forked candidate process -------------------------------------------------------------

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


CALL_KEYS = ('fn', 'h', 'op', 'name', 'args', 'kwargs', 'stdin')
MAX_NESTING = 50  # calls open at once (a test's function calling the candidate calling it back ...)


def checked_answer(rec, n):
    """A call's final answer as Node gets it ({v | err, etype, ebases?; mut?}, out), or None when the
    record is out of shape."""
    if type(rec) is not dict or rec.get('n') != n or type(rec.get('out')) is not str:
        return None
    keys = set(rec) - {'mut'}
    if 'mut' in rec and type(rec['mut']) is not list:
        return None
    if keys == {'n', 'v', 'out'}:
        ret = {'v': rec['v']}
    elif keys in ({'n', 'err', 'etype', 'out'}, {'n', 'err', 'etype', 'ebases', 'out'}) and type(rec['err']) is str and type(rec['etype']) is str:
        ret = {'err': rec['err'][:OUTPUT_CAP], 'etype': rec['etype'][:100]}
        if type(rec.get('ebases')) is list:
            ret['ebases'] = [b[:100] for b in rec['ebases'][:8] if type(b) is str]
    else:
        return None
    if 'mut' in rec:
        ret['mut'] = rec['mut']
    return ret, rec['out'][:CALL_OUTPUT_CAP]


def is_call_back(rec, n):
    return type(rec) is dict and set(rec) == {'n', 'cb', 'args', 'kwargs'} and rec['n'] == n and type(rec['cb']) is int \
        and type(rec['args']) is list and type(rec['kwargs']) is list


def run_calls(job, child, budget, reply):
    """Load the candidate, tell Node its names, then relay Node's calls (from the checker) to it
    and its answers back, until Node says the tests are done. A call may be answered by a call-back
    (the candidate calling a test's function: sandbox_calls.py), relayed to Node, whose answer
    ({cbret}) goes back to the candidate; the checker may call the candidate again meanwhile, so
    calls nest. Answers are checked for shape only: the candidate's answers are data, and the
    verdict is the checker's."""
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
    open_calls = []  # [call number, whether it waits on a call-back], innermost last
    while True:
        line = read_line(0, STDIN_BUF, Wall(10 ** 9))
        if line is None:
            raise EOFError('Node closed the worker during a job')
        msg = json.loads(line)
        if msg.get('end') is True:
            return
        if 'cbret' in msg and open_calls and open_calls[-1][1]:
            open_calls[-1][1] = False
            payload = {'cbret': msg['cbret']}
        elif type(msg.get('call')) is dict and (not open_calls or open_calls[-1][1]):
            payload = {'n': n, **{k: msg['call'][k] for k in CALL_KEYS if k in msg['call']}}
            open_calls.append([n, False])
            n += 1
        else:
            raise EOFError('Node sent a line out of turn')
        ret, out = None, ''
        if gone is None and load is None:
            if len(open_calls) > MAX_NESTING or not send_to(child, payload):
                gone = 'nested its calls too deeply' if len(open_calls) > MAX_NESTING else 'ended'
            else:
                rec = read_record(child, budget)
                if rec is None:
                    gone = 'timed out' if budget.spent() else 'ended'
                elif is_call_back(rec, open_calls[-1][0]):
                    open_calls[-1][1] = True
                    send({'id': job['id'], 'cb': {'k': rec['cb'], 'args': rec['args'], 'kwargs': rec['kwargs']}})
                    continue
                else:
                    answer = checked_answer(rec, open_calls[-1][0])
                    if answer is None:
                        gone = 'broke the protocol'
                        reply['violation'] = f'unexpected record for call {open_calls[-1][0]}'
                    else:
                        ret, out = answer
        open_calls.pop()
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
