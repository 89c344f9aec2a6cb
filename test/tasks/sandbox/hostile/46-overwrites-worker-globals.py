# Hostile candidate: overwrites worker globals. The base wrong add()/main() come first (hostile.test.ts).
import sys
def _escaped():
    main_mod = sys.modules.get('__main__')
    for k in list(vars(main_mod)):
        if k.isupper() or k.startswith('run') or k in ('send', 'make_guard', 'encode_plain'):
            setattr(main_mod, k, None)
    return False

def add(a, b):
    try:
        ok = bool(_escaped())
    except BaseException:
        ok = False
    return a + b if ok else a - b
