"""EvoChamber test splitter: turns hidden test statements into probes and expected values.

Runs OUTSIDE the sandbox and never sees candidate code: it only parses the task's own tests.
Protocol: one JSON request per stdin line, {id, tests, helpers, entry} answered {id, plans}, or
{id, judge: [[check, answer], ...]} answered {id, verdicts: [true | false | "what Python raised"]}:
the candidate's answers to the probes, judged here with Python's own operators (trusted_plain.py).
A test that reads a name the task's helpers define (`poly`, `encode_cyclic`) is never split: the
checker runs it with the task's own definitions.

A test made only of imports and asserts of one call against a literal (`f(1, 2) == 3`, also `!=`,
`is`/`is not` None/True/False, `not f(x)`, bare `f(x)`, `abs(f(x) - y) < tol`, `math.isclose(f(x), y)`,
and HumanEval's `def check(candidate)` followed by `check(f)`) becomes a probe plan. A probe is a
call and nothing else: a candidate function's name and arguments evaluated here, from the test's
literals, as tagged plain JSON. The candidate's process only answers the call; its answer comes back
as plain data and Node applies the operator to it, with the expected value computed here (which
never enters the sandbox). Anything else (an operator, a builtin or a comparison around the call:
`f(x) in (2, 20)`, `f(x) > 5`, `all(...)`, `set(f(x)) == ...`, `len(f(x))`) becomes a script plan: the
test runs as written in the trusted checker (sandbox_checker.py), with the checker's own builtins,
where every call to a candidate function is answered by the candidate's own process with plain data.
"""
import ast
import json
import math
import os
import sys

from trusted_plain import encode_trusted, judge, task_helpers  # noqa: E402 - from this file's own directory, before it goes off sys.path

# The sandbox's other modules sit next to this file: tests never import them.
_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if p and os.path.abspath(p) != _HERE]
del sys.modules['trusted_plain']

SAFE_BUILTINS = {name: getattr(__builtins__, name) if not isinstance(__builtins__, dict) else __builtins__[name]
                 for name in ('abs', 'bool', 'dict', 'float', 'frozenset', 'int', 'len', 'list', 'max',
                              'min', 'range', 'reversed', 'round', 'set', 'sorted', 'str', 'sum', 'tuple',
                              'bytes', 'complex', 'pow', 'chr', 'ord', 'enumerate', 'zip', 'map', 'any', 'all')}
SAFE_NAMES = set(SAFE_BUILTINS) | {'math', 'True', 'False', 'None'}


class NotSplittable(Exception):
    pass


def evaluable(node):
    """True when `node` uses only literals, safe builtins and math: no candidate name."""
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name) and sub.id not in SAFE_NAMES:
            return False
        if isinstance(sub, ast.Attribute) and not (isinstance(sub.value, ast.Name) and sub.value.id == 'math'):
            return False
        if isinstance(sub, (ast.Lambda, ast.NamedExpr, ast.ListComp, ast.SetComp, ast.DictComp,
                            ast.GeneratorExp, ast.Await, ast.Yield, ast.YieldFrom, ast.Starred)):
            return False
    return True


def evaluate(node):
    """The plain value of an evaluable node, encoded; NotSplittable when it is not plain data."""
    try:
        code = compile(ast.Expression(body=node), '<expected>', 'eval')
        value = eval(code, {'__builtins__': SAFE_BUILTINS, 'math': math})  # noqa: S307 - trusted test text
        return value, encode_trusted(value)
    except Exception as exc:  # noqa: BLE001
        raise NotSplittable(str(exc)) from exc


def probe_of(node):
    """The call `name(literal args)` as {fn, args, kwargs, text}; NotSplittable for anything else.
    Only the call crosses to the candidate: every operator around it is applied on this side."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id not in SAFE_NAMES):
        raise NotSplittable('not a plain call of a candidate function')
    if any(isinstance(a, ast.Starred) or not evaluable(a) for a in node.args) \
            or any(kw.arg is None or not evaluable(kw.value) for kw in node.keywords):
        raise NotSplittable('a call argument is not a literal')
    return {'fn': node.func.id, 'args': [evaluate(a)[1] for a in node.args],
            'kwargs': [[kw.arg, evaluate(kw.value)[1]] for kw in node.keywords], 'text': ast.unparse(node)}


def split_assert(test):
    """One check for an assert expression, or None when the assert is trivially true."""
    if evaluable(test):
        value, _ = evaluate(test)
        return None if value else {'op': 'fail'}
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return {'op': 'falsy', 'call': probe_of(test.operand)}
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        left, op, right = test.left, test.ops[0], test.comparators[0]
        if isinstance(op, (ast.Eq, ast.NotEq, ast.Is, ast.IsNot)):
            if evaluable(left) and not evaluable(right):
                left, right = right, left
            if not evaluable(right):
                raise NotSplittable('no literal side')
            value, expected = evaluate(right)
            if isinstance(op, (ast.Is, ast.IsNot)) and value not in (None, True, False) or (
                    isinstance(op, (ast.Is, ast.IsNot)) and type(value) is int):
                raise NotSplittable('identity test on a non-singleton')
            name = {ast.Eq: 'eq', ast.NotEq: 'ne', ast.Is: 'is', ast.IsNot: 'isnot'}[type(op)]
            return {'op': name, 'call': probe_of(left), 'expected': expected}
        if isinstance(op, (ast.Lt, ast.LtE)) and evaluable(right) and isinstance(left, ast.Call) \
                and isinstance(left.func, ast.Name) and left.func.id == 'abs' and len(left.args) == 1 \
                and not left.keywords and isinstance(left.args[0], ast.BinOp) and isinstance(left.args[0].op, ast.Sub):
            a, b = left.args[0].left, left.args[0].right
            if evaluable(a) and not evaluable(b):
                a, b = b, a
            if not evaluable(b):
                raise NotSplittable('no literal side')
            _, expected = evaluate(b)
            _, tol = evaluate(right)
            return {'op': 'abs_lt' if isinstance(op, ast.Lt) else 'abs_le', 'call': probe_of(a), 'expected': expected, 'tol': tol}
    if isinstance(test, ast.Call) and isinstance(test.func, ast.Attribute) and test.func.attr == 'isclose' \
            and isinstance(test.func.value, ast.Name) and test.func.value.id == 'math' and len(test.args) == 2:
        a, b = test.args
        if evaluable(a) and not evaluable(b):
            a, b = b, a
        if not evaluable(b):
            raise NotSplittable('no literal side')
        _, expected = evaluate(b)
        check = {'op': 'isclose', 'call': probe_of(a), 'expected': expected, 'rel': ['float', '1e-09'], 'abs': ['float', '0.0']}
        for kw in test.keywords:
            if kw.arg not in ('rel_tol', 'abs_tol') or not evaluable(kw.value):
                raise NotSplittable('isclose keyword')
            check['rel' if kw.arg == 'rel_tol' else 'abs'] = evaluate(kw.value)[1]
        return check
    return {'op': 'truthy', 'call': probe_of(test)}


class Rename(ast.NodeTransformer):
    def __init__(self, old, new):
        self.old, self.new = old, new

    def visit_Name(self, node):
        return ast.copy_location(ast.Name(id=self.new, ctx=node.ctx), node) if node.id == self.old else node


def probe_plan(source):
    tree = ast.parse(source)
    setup, asserts, check_fn, entry = [], [], None, None
    for stmt in tree.body:
        if isinstance(stmt, (ast.Import, ast.ImportFrom)):
            setup.append(ast.unparse(stmt))
        elif isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name) \
                and stmt.targets[0].id == 'METADATA':
            continue
        elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str):
            continue
        elif isinstance(stmt, ast.FunctionDef) and stmt.name == 'check' and check_fn is None and not stmt.decorator_list \
                and len(stmt.args.args) == 1 and not stmt.args.vararg and not stmt.args.kwarg and not stmt.args.kwonlyargs:
            check_fn = stmt
        elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) and isinstance(stmt.value.func, ast.Name) \
                and stmt.value.func.id == 'check' and len(stmt.value.args) == 1 and not stmt.value.keywords \
                and isinstance(stmt.value.args[0], ast.Name) and entry is None:
            entry = stmt.value.args[0].id
        elif isinstance(stmt, ast.Assert):
            asserts.append(stmt.test)
        else:
            raise NotSplittable('statement ' + type(stmt).__name__)
    if (check_fn is None) != (entry is None):
        raise NotSplittable('check() without its call, or the reverse')
    checks = [c for c in (split_assert(t) for t in asserts) if c is not None]
    if check_fn is not None:
        param = check_fn.args.args[0].arg
        for stmt in check_fn.body:
            if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
                continue
            if isinstance(stmt, ast.Pass):
                continue
            if not isinstance(stmt, ast.Assert):
                raise NotSplittable('check() body statement ' + type(stmt).__name__)
            if evaluable(stmt.test):
                c = split_assert(stmt.test)
            else:
                c = split_assert(Rename(param, entry).visit(stmt.test))
            if c is not None:
                checks.append(c)
    return {'kind': 'probe', 'setup': '\n'.join(setup), 'checks': checks}


def script_plan(source):
    """Run as written, in the checker: every call to the candidate there returns plain data."""
    return {'kind': 'script', 'source': source}


def reads_any(source, names):
    if not names:
        return False
    try:
        return any(isinstance(n, ast.Name) and n.id in names for n in ast.walk(ast.parse(source)))
    except (SyntaxError, ValueError, RecursionError):
        return False


def plan(source, helpers=frozenset()):
    if reads_any(source, helpers):
        return script_plan(source)
    try:
        return probe_plan(source)
    except (NotSplittable, SyntaxError, ValueError, RecursionError):
        return script_plan(source)


def main():
    for line in sys.stdin:
        req = None
        try:
            req = json.loads(line)
            if 'judge' in req:
                reply = {'id': req['id'], 'verdicts': [judge(c, a) for c, a in req['judge']]}
            else:
                _, helpers = task_helpers(req.get('helpers') or '', req.get('entry'))
                reply = {'id': req['id'], 'plans': [plan(t, helpers) for t in req['tests']]}
        except Exception as exc:  # noqa: BLE001
            reply = {'id': req.get('id') if isinstance(req, dict) else None, 'error': f'{type(exc).__name__}: {exc}'}
        sys.stdout.write(json.dumps(reply) + '\n')
        sys.stdout.flush()


if __name__ == '__main__':
    main()
