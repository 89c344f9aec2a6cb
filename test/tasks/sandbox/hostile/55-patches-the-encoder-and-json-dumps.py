# Hostile candidate: patches the module that encodes its answers (the worker's encode_plain, found
# through sys.modules: the worker's, the wire's and the call child's) and json.dumps, so that every False it would report (the result
# of a comparison evaluated in its process) goes out as True. Its own add() still subtracts. The base
# wrong add()/main() come first (hostile.test.ts).
import json
import sys
# Every module that holds the encoder: the worker's, the wire's, the call child's.
for _name in ('__main__', 'sandbox_wire', 'sandbox_calls'):
    _mod = sys.modules.get(_name)
    _encode = getattr(_mod, 'encode_plain', None)
    if _encode is not None:
        def _forged(value, *a, _encode=_encode, **k):
            return ['bool', True] if value is False else _encode(value, *a, **k)
        _mod.encode_plain = _forged
_dumps = json.dumps
def _forged_dumps(obj, *a, **k):
    return _dumps(obj, *a, **k).replace('["bool", false]', '["bool", true]')
json.dumps = _forged_dumps
