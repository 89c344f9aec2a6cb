# Hostile candidate: native extension in tmp. The base wrong add()/main() come first (hostile.test.ts).
import os, sys, glob, shutil, tempfile
def _escaped():
    src = [p for p in glob.glob(sys.base_prefix + '/lib/python3*/lib-dynload/_bisect*.so')][0]
    d = tempfile.mkdtemp()
    dst = os.path.join(d, '_bisect' + src[src.index('.'):])
    shutil.copyfile(src, dst)
    import importlib.machinery, importlib.util
    loader = importlib.machinery.ExtensionFileLoader('_bisect', dst)
    spec = importlib.util.spec_from_file_location('_bisect', dst, loader=loader)
    mod = importlib.util.module_from_spec(spec)
    return mod is not None

def add(a, b):
    try:
        ok = bool(_escaped())
    except BaseException:
        ok = False
    return a + b if ok else a - b
