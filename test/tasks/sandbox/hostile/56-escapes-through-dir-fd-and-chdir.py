# Hostile candidate: escapes the temp dir through a directory fd. The audit hook's 'open' event has
# no dir_fd and resolves a relative path against getcwd(): with the working directory 16 levels
# deep, '../' * 16 stays inside lexically, but resolved against an fd of the temp dir itself it
# reaches the host's root. It reads a project file and writes into a host directory that way (and
# through os.scandir of a root fd, /proc/self/fd and fchdir); add() is right only if one worked.
# The base wrong add()/main() come first (hostile.test.ts).
import os

def _escaped():
    base = os.getcwd()
    d = base
    for _ in range(16):
        d = os.path.join(d, 'd')
        os.makedirs(d, exist_ok=True)
    top = os.open(base, os.O_RDONLY)
    os.chdir(d)
    up = '../' * 16
    won = False
    for attempt in (
        lambda: os.read(os.open(up + '{{PROJECT}}'.lstrip('/'), os.O_RDONLY, dir_fd=top), 10),
        lambda: os.write(os.open(up + '{{MARK}}'.lstrip('/') + '/escaped', os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=top), b'x'),
        lambda: open(f'/proc/self/fd/{top}/' + up + '{{PROJECT}}'.lstrip('/')).read(),
        lambda: (os.fchdir(top), open(up + '{{PROJECT}}'.lstrip('/')).read()),
        lambda: [e.name for e in os.scandir(os.open('/', os.O_RDONLY))],
        lambda: os.listdir(os.open(up + '{{MARK}}'.lstrip('/'), os.O_RDONLY, dir_fd=top)) is not None,
    ):
        try:
            won = won or bool(attempt())
        except BaseException:
            pass
    return won

def add(a, b):
    try:
        ok = bool(_escaped())
    except BaseException:
        ok = False
    return a + b if ok else a - b
