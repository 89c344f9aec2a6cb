"""EvoChamber code-sandbox worker: a long-lived process that runs untrusted candidates.

Protocol: one JSON job per stdin line {id, code, tests, timeoutMs, memoryMb}; one JSON reply per
stdout line {id, load, results, timedOut, exit}. The first line written is {"ready": true}.

Each job runs in a forked child that gets its own session (so the whole tree can be killed),
a fresh temp dir, rlimits, no inherited stdio, dropped privileges where possible, and a Python
audit hook that refuses network, subprocesses, ctypes and file access outside the temp dir.
The audit hook is defence in depth, not a boundary: the boundary is bubblewrap around this
worker (set up by the Node side) when the host has it.
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

# Loaded before fork so candidates get them for free, even after privileges are dropped and the
# stdlib directory becomes unreadable.
for _name in ('math', 'cmath', 'heapq', 'bisect', 'collections', 'itertools', 'functools',
              'operator', 're', 'string', 'random', 'statistics', 'fractions', 'decimal', 'typing',
              'dataclasses', 'copy', 'array', 'enum', 'numbers', 'datetime', 'textwrap',
              'unicodedata', 'hashlib', 'io', 'contextlib', 'traceback', 'collections.abc', 'json',
              'struct', 'base64', 'queue', 'time', 'calendar', 'pprint', 'ast'):
    try:
        __import__(_name)
    except Exception:
        pass
import contextlib  # noqa: E402
import io  # noqa: E402

MB = 1024 * 1024
OUTPUT_CAP = 2000
REPORT_CAP = 4 * MB
NOBODY = 65534

BLOCKED_EVENTS = ('socket.', 'ctypes.', 'subprocess.', 'os.exec', 'os.spawn', 'os.posix_spawn',
                  'os.fork', 'os.forkpty', 'os.system', 'pty.', 'gc.get_', 'sys.remote_exec')
BLOCKED_IMPORTS = ('_posixsubprocess', '_ctypes', 'ctypes', '_multiprocessing')
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


def install_guard(tmp):
    """Audit hook confining file access to `tmp` (read: also the Python install)."""
    realpath = os.path.realpath
    fspath = os.fsdecode
    own_pid = os.getpid()
    write_roots = (realpath(tmp),)
    read_roots = write_roots + tuple(sorted({realpath(p) for p in (
        sys.prefix, sys.base_prefix, sys.exec_prefix) if p}))

    def inside(path, roots):
        if isinstance(path, int):
            return True  # an already-open descriptor: its opening was checked
        try:
            p = realpath(fspath(path if path is not None else '.'))
        except (TypeError, ValueError):
            return False
        return p in DEVICES or any(p == r or p.startswith(r.rstrip('/') + '/') for r in roots)

    def deny(what):
        raise PermissionError(f'sandbox: {what} is not allowed')

    def hook(event, args):
        if event.startswith(BLOCKED_EVENTS):
            deny(event)
        elif event == 'import' and args and args[0] in BLOCKED_IMPORTS:
            deny(f'import {args[0]}')
        elif event == 'open':
            path, mode, flags = (tuple(args) + (None, None, 0))[:3]
            writing = any(c in (mode or '') for c in 'wax+') or bool((flags or 0) & WRITE_FLAGS)
            if path is not None and not inside(path, write_roots if writing else read_roots):
                deny(f'open {path!r}')
        elif event in ('os.kill', 'os.killpg'):
            if args and args[0] not in (0, own_pid):
                deny(f'{event} {args[0]}')
        elif event in PATH_EVENTS:
            writes, reads = PATH_EVENTS[event]
            for k in writes:
                if k < len(args) and not inside(args[k], write_roots):
                    deny(f'{event} {args[k]!r}')
            for k in reads:
                if k < len(args) and not inside(args[k], read_roots):
                    deny(f'{event} {args[k]!r}')

    sys.addaudithook(hook)


class CappedText(io.StringIO):
    """stdout/stderr stand-in that keeps only the first OUTPUT_CAP characters."""

    def write(self, s):
        room = OUTPUT_CAP - self.tell()
        if room > 0:
            super().write(s[:room])
        return len(s)


def describe(exc):
    if isinstance(exc, SyntaxError):
        return f'SyntaxError: {exc.msg} (line {exc.lineno})'
    text = str(exc)
    return f'{type(exc).__name__}: {text}'[:300] if text else type(exc).__name__


def emit(fd, obj):
    data = (json.dumps(obj) + '\n').encode()
    while data:
        data = data[os.write(fd, data):]


def run_candidate(code, tests, fd):
    env = {'__name__': '__candidate__', '__builtins__': __builtins__}
    buf = CappedText()
    try:
        with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(buf):
            exec(compile(code, 'candidate.py', 'exec'), env)
    except BaseException as exc:  # noqa: BLE001 - SystemExit and friends are candidate failures too
        emit(fd, {'load': describe(exc), 'out': buf.getvalue()})
        return
    emit(fd, {'load': None, 'out': buf.getvalue()})
    for i, test in enumerate(tests):
        buf = CappedText()
        ok, msg = True, ''
        try:
            with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(buf):
                exec(compile(test, f'<test {i}>', 'exec'), env)
        except BaseException as exc:  # noqa: BLE001
            ok, msg = False, describe(exc)
        emit(fd, {'t': i, 'ok': ok, 'out': (buf.getvalue() + msg)[:OUTPUT_CAP]})


def child_main(job, tmp, fd):
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
    cpu = int(job['timeoutMs'] / 1000) + 1
    set_limit(resource.RLIMIT_CPU, cpu, cpu + 1)
    set_limit(resource.RLIMIT_AS, int(job['memoryMb']) * MB)
    set_limit(resource.RLIMIT_FSIZE, 16 * MB)
    set_limit(resource.RLIMIT_CORE, 0)
    set_limit(resource.RLIMIT_NOFILE, 64)
    set_limit(resource.RLIMIT_NPROC, 32)  # ignored for uid 0, hence the privilege drop below
    if os.geteuid() == 0:
        try:
            os.chown(tmp, NOBODY, NOBODY)
            os.setgroups([])
            os.setgid(NOBODY)
            os.setuid(NOBODY)
        except OSError:
            pass  # inside bwrap's user namespace there is no other uid to become
    install_guard(tmp)
    run_candidate(job['code'], job['tests'], fd)


def kill_tree(pid):
    for kill in (os.killpg, os.kill):
        try:
            kill(pid, signal.SIGKILL)
        except OSError:
            pass


def collect(fd, deadline):
    chunks, size = [], 0
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return b''.join(chunks), True
        ready, _, _ = select.select([fd], [], [], remaining)
        if not ready:
            continue
        data = os.read(fd, 65536)
        size += len(data)
        if not data or size > REPORT_CAP:
            return b''.join(chunks), False
        chunks.append(data)


def run_job(job):
    tests = list(job['tests'])
    tmp = tempfile.mkdtemp(prefix='cand-')
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        status = 0
        try:
            os.close(r)
            child_main(job, tmp, w)
        except BaseException:  # noqa: BLE001
            status = 70
        finally:
            os._exit(status)
    os.close(w)
    raw, timed_out = collect(r, time.monotonic() + job['timeoutMs'] / 1000)
    kill_tree(pid)  # also reaps stray grandchildren that share the candidate's process group
    _, status = os.waitpid(pid, 0)
    os.close(r)
    shutil.rmtree(tmp, ignore_errors=True)
    load, results = 'candidate process ended before reporting', [None] * len(tests)
    for line in raw.split(b'\n'):
        try:
            msg = json.loads(line)
        except ValueError:
            continue
        if not isinstance(msg, dict):
            continue
        if 'load' in msg:
            load = msg['load']
        elif isinstance(msg.get('t'), int) and 0 <= msg['t'] < len(tests) and results[msg['t']] is None:
            results[msg['t']] = {'ok': msg.get('ok') is True, 'out': str(msg.get('out', ''))}
    exit_info = None
    if not timed_out and os.WIFSIGNALED(status):
        exit_info = f'killed by {signal.Signals(os.WTERMSIG(status)).name}'
    elif not timed_out and os.WEXITSTATUS(status) != 0:
        exit_info = f'exited with status {os.WEXITSTATUS(status)}'
    return {'id': job['id'], 'load': load, 'results': results, 'timedOut': timed_out, 'exit': exit_info}


def reap_orphans():
    # As PID 1 of a namespace this worker inherits the candidates' orphans; collect the zombies.
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def main():
    send({'ready': True, 'pid': os.getpid(), 'uid': os.getuid(), 'python': sys.version.split()[0]})
    for line in sys.stdin.buffer:
        job = None
        try:
            job = json.loads(line)
            reply = run_job(job)
        except Exception as exc:  # noqa: BLE001 - a malformed job must not end the worker
            reply = {'id': job.get('id') if isinstance(job, dict) else None, 'error': describe(exc)}
        send(reply)
        reap_orphans()


if __name__ == '__main__':
    main()
