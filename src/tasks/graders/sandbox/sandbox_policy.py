"""EvoChamber code sandbox, the policy: what a candidate's process may do.

Shared by the worker (sandbox_worker.py) and the script-test harness (sandbox_harness.py), which
ship together in this directory and import it before any candidate code runs.

Containment: bubblewrap around this worker (set up by the Node side) when the host has it; per
job, a fork with its own session, fresh temp dir, rlimits, dropped privileges and an audit hook
that refuses network, subprocesses, ctypes, frame introspection and file access outside the
temp dir. The hook and all harness state live in closures and locals, never in module globals.
"""
import io
import os
import resource
import signal
import sys

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

MB = 1024 * 1024
OUTPUT_CAP = 2000
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



# --- entering the sandbox ---------------------------------------------------------------------

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
