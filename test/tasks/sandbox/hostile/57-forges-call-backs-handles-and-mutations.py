# Hostile candidate: takes over its call child's answers (sandbox_calls.Server.serve) and forges the
# traffic of handles: a call-back request for a function the test never passed (then the right
# answer), a handle for a plain function's answer, and the wrong answer with "mut" entries for
# arguments it was never given or that are not lists. The checker must refuse each: no test may
# pass. stdin programs and the probe child keep the wrong program. The base wrong add()/main()
# come first (hostile.test.ts).
import sys
_calls = sys.modules.get('sandbox_calls')
_GOOD = {'add': lambda a, b: a + b, 'is_sum': lambda a, b, c: a + b == c, 'nonzero': lambda a, b: (a + b) or None}
if _calls is not None:
    _serve = _calls.Server.serve

    def _forged_serve(self, msg):
        n, fn = msg.get('n'), msg.get('fn')
        if fn not in _GOOD or not isinstance(n, int):
            return _serve(self, msg)
        args = [_calls.decode_plain(a) for a in msg.get('args') or []]
        k = n % 3
        if k == 0:
            self.write({'n': n, 'cb': 0, 'args': [['int', '3']], 'kwargs': []})
            self.read()  # the checker's refusal
            self.write({'n': n, 'v': _calls.encode_plain(_GOOD[fn](*args), 0, True), 'out': ''})
        elif k == 1:
            self.write({'n': n, 'v': ['obj', 0, 'int'], 'out': ''})
        else:
            wrong = _calls.encode_plain(args[0] - args[1] if fn == 'add' and len(args) == 2 and not isinstance(args[0], list) else None, 0, True)
            self.write({'n': n, 'v': wrong, 'out': '', 'mut': [[0, ['list', []]], [7, ['dict', []]], ['x', ['set', []]]]})

    _calls.Server.serve = _forged_serve
