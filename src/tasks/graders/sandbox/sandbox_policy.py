"""EvoChamber sandbox policy: what confines a candidate's forked process (docs/sandbox-threat-model.md).

Imported by sandbox_worker.py, which calls `confine` in each forked child before any candidate
code runs: a fresh session and temp dir, rlimits, dropped privileges (its own uid,
EVO_SANDBOX_UID, when the worker may change uid), no signal handlers or trace hooks, and an audit
hook that refuses network, subprocesses, ctypes, native code from outside the Python install, and
file access outside the temp dir. `preload` loads the modules candidates get for free.

Nothing here holds a secret: the hook keeps everything it uses in its closure, so a candidate that
finds this module (it lives in the worker's process) cannot switch the hook off by rebinding names.
"""
import os
import resource
import signal
import sys

# Loaded before candidates run so they get them for free (even after privileges are dropped and
# the stdlib directory becomes unreadable).
PRELOAD = ('math', 'cmath', 'heapq', 'bisect', 'collections', 'itertools', 'functools',
           'operator', 're', 'string', 'random', 'statistics', 'fractions', 'decimal', 'typing',
           'dataclasses', 'copy', 'array', 'enum', 'numbers', 'datetime', 'textwrap',
           'unicodedata', 'hashlib', 'io', 'contextlib', 'traceback', 'collections.abc', 'json',
           'struct', 'base64', 'queue', 'time', 'calendar', 'pprint', 'ast', 'threading', 'socket')


def preload():
    """Import PRELOAD (the worker calls this once its own directory is off sys.path)."""
    for name in PRELOAD:
        try:
            __import__(name)
        except Exception:  # noqa: BLE001 - a module this Python lacks is simply not offered
            pass


MB = 1024 * 1024
NOBODY = 65534
# The uid candidates run as (Node gives each worker its own, so one worker's candidates cannot
# signal another's, and RLIMIT_NPROC counts only this worker's candidate).
SANDBOX_UID = int(os.environ.get('EVO_SANDBOX_UID') or NOBODY)

BLOCKED_EVENTS = ('socket.', 'ctypes.', 'subprocess.', 'os.exec', 'os.spawn', 'os.posix_spawn',
                  'os.fork', 'os.forkpty', 'os.system', 'pty.', 'gc.', 'sys.remote_exec',
                  'sys._current_frames', 'sys.settrace', 'sys.setprofile',
                  'cpython.PyInterpreterState_', 'sys.addaudithook')
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


def make_guard(tmp, own_pid):
    """Audit hook confining the process. It looks up no global name: everything it uses is bound
    in its closure (immutable tuples, C functions), so rebinding module globals or patching
    builtins cannot switch it off. Paths are normalized lexically (no Python-level realpath the
    candidate could patch); creating symlinks and hard links is refused, so lexical is enough."""
    fspath, getcwd = os.fspath, os.getcwd
    isinstance_, str_, bytes_, int_, len_, tuple_, bool_ = isinstance, str, bytes, int, len, tuple, bool
    blocked_events, blocked_imports = BLOCKED_EVENTS, BLOCKED_IMPORTS
    path_events = tuple(PATH_EVENTS.items())
    write_flags, devices = WRITE_FLAGS, DEVICES
    write_roots = (os.path.realpath(tmp),)
    code_roots = tuple(sorted({os.path.realpath(p) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix) if p}))
    read_roots = write_roots + code_roots
    perm = PermissionError

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
        if event == 'import':
            if len_(args) > 0 and args[0] in blocked_imports:
                raise perm('sandbox: this import is not allowed')
            # _imp.create_dynamic reports the file it loads: native code only from the install.
            if len_(args) > 1 and args[1] is not None and not inside(args[1], code_roots):
                raise perm('sandbox: loading native code from outside the Python install is not allowed')
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
    """No signal handlers or trace hooks for candidates (defence in depth: their frames hold no test
    now, but a handler could still interrupt the child's own record writing)."""
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
    """Become the candidate's own uid when this process may (root with CAP_SETUID, see
    sandbox-isolation.ts); in a user namespace there is no other uid to become."""
    if os.geteuid() == 0:
        try:
            os.chmod(tmp, 0o777)  # the owner may, without CAP_CHOWN; no other uid sees this /tmp
        except OSError:
            pass
        try:
            os.setgroups([])
            os.setgid(SANDBOX_UID)
            os.setuid(SANDBOX_UID)
        except OSError:
            pass

def confine(tmp, limits, observe=None):
    """Everything a forked child does before it reads the candidate's code, in this order: the
    audit hook goes in last, once the process no longer needs what it forbids. `observe`, an audit
    hook that only looks (sandbox_nondeterminism.Watch), goes in just before it: the guard refuses
    every hook added after its own."""
    enter_sandbox(tmp, limits)
    drop_privileges(tmp)
    disarm_frame_leaks()
    # Determinism: string hashes are fixed by PYTHONHASHSEED=0 (sandbox-isolation.ts), and the shared
    # `random` starts from one seed in every candidate process, so a program that draws from it
    # gets one verdict, the one the verdict cache keeps (docs/sandbox-threat-model.md).
    import random
    random.seed(0)
    guard = make_guard(tmp, os.getpid())
    if observe is not None:
        sys.addaudithook(observe)
    sys.addaudithook(guard)
