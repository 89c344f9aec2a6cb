# Hostile candidate: native extension from memfd. The base wrong add()/main() come first (hostile.test.ts).
import os, sys, glob, _imp
def _escaped():
    src = glob.glob(sys.base_prefix + '/lib/python3*/lib-dynload/_bisect*.so')[0]
    data = open(src, 'rb').read()
    fd = os.memfd_create('x')
    os.write(fd, data)
    import importlib.util
    spec = importlib.util.spec_from_file_location('_bisect', '/proc/self/fd/%d' % fd)
    return _imp.create_dynamic(spec) is not None

def add(a, b):
    try:
        ok = bool(_escaped())
    except BaseException:
        ok = False
    return a + b if ok else a - b
