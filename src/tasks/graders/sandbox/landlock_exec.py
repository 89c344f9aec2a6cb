"""EvoChamber fallback launcher: walls the sandbox worker in with Landlock, then becomes it.

Without bubblewrap the audit hook (sandbox_policy.py) was the only file-system guard, and it cannot
see a `dir_fd`: the 'open' audit event has none, so a relative path resolved against a directory fd
of the temp dir left it while the hook checked it against getcwd(). Landlock (Linux >= 5.13) is the
kernel's answer: this launcher restricts itself to
  - read, write, create and remove inside $TMPDIR (the worker's own directory; each candidate's temp
    dir is made inside it),
  - read and execute in the Python install, this directory (the worker's own code) and the system's
    /usr, /lib* and /etc/ld.so.cache (what exec'ing Python loads; bubblewrap binds /usr read-only too),
  - read and write of /dev/null, /dev/zero, /dev/urandom, /dev/random,
and nothing else (not /proc: the worker reads its candidates' CPU time from their CPU clocks), then
execs the worker. The restriction holds across exec and for every process the worker forks, so no
path, fd-relative, symlink, /proc/self/fd or chdir trick of a candidate opens anything else: the
kernel resolves the path and checks where it lands. ctypes is used here only, before the exec: the
worker and its candidates never have it loaded.

`--abi` prints the Landlock ABI this kernel offers (0: none) and exits: Node probes it once, and
without Landlock runs the worker directly (the audit hook is then the fallback's only file guard).
"""
import os
import sys

CREATE_RULESET, ADD_RULE, RESTRICT_SELF = 444, 445, 446  # the same on every architecture
CREATE_RULESET_VERSION = 1
RULE_PATH_BENEATH = 1
PR_SET_NO_NEW_PRIVS = 38
EXECUTE, WRITE_FILE, READ_FILE, READ_DIR = 1, 2, 4, 8
REFER, TRUNCATE = 1 << 13, 1 << 14
FILE_RIGHTS = EXECUTE | WRITE_FILE | READ_FILE | TRUNCATE
READ_ONLY = EXECUTE | READ_FILE | READ_DIR
DEVICES = ('/dev/null', '/dev/zero', '/dev/urandom', '/dev/random')
# What exec'ing Python needs besides its install: the dynamic loader, shared libraries, locales.
SYSTEM = ('/usr', '/lib', '/lib32', '/lib64', '/etc/ld.so.cache')
HERE = os.path.dirname(os.path.abspath(__file__))


def libc():
    import ctypes
    lib = ctypes.CDLL(None, use_errno=True)
    lib.syscall.restype = ctypes.c_long
    return lib, ctypes


def abi():
    try:
        lib, _ = libc()
    except (ImportError, OSError):
        return 0
    return max(0, lib.syscall(CREATE_RULESET, None, 0, CREATE_RULESET_VERSION))


def restrict(rw_dirs, ro_dirs, devices):
    """Landlock this process: full access beneath rw_dirs, read/execute beneath ro_dirs, read/write
    of the devices. Raises OSError when the kernel refuses (the caller then does not run the worker)."""
    lib, ctypes = libc()
    version = lib.syscall(CREATE_RULESET, None, 0, CREATE_RULESET_VERSION)
    if version < 1:
        raise OSError('landlock: not offered by this kernel')
    handled = ((1 << 13) - 1) | (REFER if version >= 2 else 0) | (TRUNCATE if version >= 3 else 0)
    attr = ctypes.create_string_buffer(handled.to_bytes(8, 'little'), 8)
    ruleset = lib.syscall(CREATE_RULESET, attr, 8, 0)
    if ruleset < 0:
        raise OSError(ctypes.get_errno(), 'landlock: cannot create a ruleset')
    rules = [(d, handled) for d in rw_dirs] + [(d, READ_ONLY) for d in ro_dirs] + [(d, READ_FILE | WRITE_FILE | TRUNCATE) for d in devices]
    for path, access in rules:
        try:
            fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
        except OSError:
            continue  # a device or directory this host lacks
        try:
            if not os.path.isdir(path):
                access &= FILE_RIGHTS
            access &= handled
            rule = ctypes.create_string_buffer(access.to_bytes(8, 'little') + fd.to_bytes(4, 'little', signed=True), 12)
            if lib.syscall(ADD_RULE, ruleset, RULE_PATH_BENEATH, rule, 0) != 0:
                raise OSError(ctypes.get_errno(), f'landlock: cannot add a rule for {path}')
        finally:
            os.close(fd)
    if lib.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 or lib.syscall(RESTRICT_SELF, ruleset, 0) != 0:
        raise OSError(ctypes.get_errno(), 'landlock: cannot restrict the worker')
    os.close(ruleset)
    return version


def main():
    if sys.argv[1:] == ['--abi']:
        print(abi())
        return
    scratch = os.environ.get('TMPDIR')
    if not scratch or not os.path.isdir(scratch):
        sys.exit('landlock_exec: TMPDIR must name the worker\'s own directory')
    roots = sorted({os.path.realpath(p) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix, HERE, *SYSTEM) if p})
    restrict([os.path.realpath(scratch)], roots, DEVICES)
    os.execv(sys.executable, [sys.executable, '-s', '-B', *sys.argv[1:]])


if __name__ == '__main__':
    main()
