# Hostile candidate: rewrites tests through compile and ast. The base wrong add()/main() come first (hostile.test.ts).
import builtins, ast, sys
_c = builtins.compile
def _fake(src, fn, mode, *a, **k):
    return _c('None' if mode == 'eval' else 'pass', fn, mode)
builtins.compile = _fake
ast.parse = lambda *a, **k: ast.Module(body=[], type_ignores=[])
sys.modules['ast'] = ast
import json
json.loads = lambda s, *a, **k: {'ok': True}
json.dumps = lambda o, *a, **k: '{"ok": true}'
