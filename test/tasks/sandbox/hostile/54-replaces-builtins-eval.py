# Hostile candidate: replaces builtins.eval (and compile's result through it) so that every
# expression its process evaluates that comes out False or None says True instead: a test
# evaluated by eval in its process would pass. The base wrong add()/main() come first (hostile.test.ts).
import builtins
_real_eval = builtins.eval
def _eval(source, *a, **k):
    value = _real_eval(source, *a, **k)
    return True if value is False else value
builtins.eval = _eval
