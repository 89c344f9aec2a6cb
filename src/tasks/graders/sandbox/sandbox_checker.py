"""EvoChamber test checker: runs a task's hidden test programs, OUTSIDE the candidate's sandbox.

The candidate never shares this interpreter. Every name a test reads that the candidate defines
(and that is not a Python builtin) is bound here to a stub; calling the stub sends the call as
plain data to the candidate's own sandboxed process (through Node and the sandbox worker) and
returns the candidate's answer decoded into fresh values of exact builtin types. The test, its
expected values and every comparison live only in this process, which the candidate cannot
signal, trace, read or write (it runs in another process tree, under its own bubblewrap when the
host has it, and its only channel is this process's stdin/stdout, held by Node).

stdin/stdout tests: when a test has replaced `sys.stdin`, a call carries what is left of it to the
candidate; what the candidate printed during the call comes back as a string, and is written to
the test's `sys.stdout` here, where the test compares it itself.

Protocol with Node (JSON lines; the checker's own stdout is kept for it, tests print elsewhere):
  Node -> checker  {"job": id, "tests": [source, ...], "names": [name, ...], "values": {name: tagged}}
  checker -> Node  {"job": id, "call": {"fn": name, "args": [tagged], "kwargs": [[name, tagged]], "stdin": str|null}}
  Node -> checker  {"ret": {"v": tagged} | {"err": str, "etype": str} | {"gone": str}, "out": str}
  checker -> Node  {"job": id, "done": [{"ok": bool, "out": str}, ...]}
"""
import ast
import builtins
import importlib
import io
import json
import keyword
import os
import sys

from trusted_plain import encode_trusted  # noqa: E402 - from this file's own directory, before it goes off sys.path

# The sandbox's other modules sit next to this file: tests never import them.
_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if p and os.path.abspath(p) != _HERE]
del sys.modules['trusted_plain']

# Loaded here once, so tests get them without paying for the import each time.
for _name in ('math', 'random', 'collections', 'itertools', 'functools', 're', 'string', 'heapq', 'fractions', 'decimal'):
    try:
        __import__(_name)
    except Exception:  # noqa: BLE001
        pass

if hasattr(sys, 'set_int_max_str_digits'):
    sys.set_int_max_str_digits(0)

OUTPUT_CAP = 2000
# Modules a candidate may have imported for the tests to use (HumanEval tests read the prompt's
# imports): the checker binds its own copy, by name, from this list only.
MODULES = frozenset(('math', 'cmath', 'random', 're', 'string', 'collections', 'itertools', 'functools',
                     'heapq', 'bisect', 'fractions', 'decimal', 'statistics', 'typing', 'copy', 'operator',
                     'hashlib', 'json', 'datetime', 'sys', 'numbers', 'array', 'textwrap', 'unicodedata'))
DEPTH = 100
PROTO_OUT = os.dup(1)
_null = os.open(os.devnull, os.O_WRONLY)
os.dup2(_null, 1)  # a test's stray writes to fd 1 can never look like a protocol line
os.dup2(_null, 2)
PROTO_IN = os.fdopen(os.dup(0), 'rb')
os.dup2(_null, 0)
BUILTIN_NAMES = frozenset(dir(builtins))
EXCEPTIONS = {n: v for n, v in vars(builtins).items() if isinstance(v, type) and issubclass(v, BaseException)
              and n not in ('KeyboardInterrupt', 'GeneratorExit', 'BaseExceptionGroup', 'ExceptionGroup')}


class CandidateGone(BaseException):
    """The candidate's process ended or ran out of time: no further call can be answered."""


class CandidateError(Exception):
    """The candidate raised an exception that is not a Python builtin one."""


class NotPlain(BaseException):
    """The candidate answered a call with something that is not plain data. Not an Exception: a
    test's `except Exception` (or `except TypeError`) cannot turn it into a pass, and the test
    fails whatever it catches (Run.not_plain)."""


NOT_PLAIN = 'NotPlainData'  # the etype the worker gives an answer it could not encode


def send(obj):
    data = (json.dumps(obj) + '\n').encode()
    while data:
        data = data[os.write(PROTO_OUT, data):]


def receive():
    line = PROTO_IN.readline()
    if not line:
        sys.exit(0)
    return json.loads(line)


def encode(value):
    """Tagged plain JSON of one of the test's own arguments (an exact builtin type)."""
    try:
        return encode_trusted(value)
    except TypeError as exc:
        raise TypeError(f'{exc}: an argument cannot be sent to the candidate (plain data only)') from None


def decode(raw, depth=0):
    """Fresh values of exact builtin types from the candidate's tagged answer; ValueError when it
    is anything else. Nothing of the candidate's survives but the data itself."""
    if depth > DEPTH or type(raw) is not list or not raw or type(raw[0]) is not str:
        raise ValueError('malformed')
    tag, rest = raw[0], raw[1:]
    if tag == 'none' and not rest:
        return None
    if tag == 'bool' and len(rest) == 1 and type(rest[0]) is bool:
        return rest[0]
    if tag in ('int', 'float', 'str', 'bytes') and len(rest) == 1 and type(rest[0]) is str:
        s = rest[0]
        if tag == 'int':
            return int(s)
        if tag == 'float':
            return float(s)
        return s if tag == 'str' else bytes.fromhex(s)
    if tag == 'complex' and len(rest) == 2 and all(type(x) is str for x in rest):
        return complex(float(rest[0]), float(rest[1]))
    if tag in ('list', 'tuple', 'set') and len(rest) == 1 and type(rest[0]) is list:
        items = [decode(v, depth + 1) for v in rest[0]]
        if tag == 'set':
            try:
                return set(items)
            except TypeError as exc:
                raise ValueError('malformed set') from exc
        return items if tag == 'list' else tuple(items)
    if tag == 'range' and len(rest) == 3 and all(type(x) is str for x in rest):
        return range(int(rest[0]), int(rest[1]), int(rest[2]))
    if tag in ('iter', 'keys', 'values', 'items') and len(rest) == 1 and type(rest[0]) is list:
        items = [decode(v, depth + 1) for v in rest[0]]
        try:
            if tag == 'keys':
                return dict.fromkeys(items).keys()
            if tag == 'values':
                return dict(enumerate(items)).values()
            if tag == 'items':
                return dict(items).items()
        except (TypeError, ValueError) as exc:
            raise ValueError('malformed view') from exc
        return iter(items)
    if tag == 'dict' and len(rest) == 1 and type(rest[0]) is list:
        out = {}
        for pair in rest[0]:
            if type(pair) is not list or len(pair) != 2:
                raise ValueError('malformed dict')
            try:
                out[decode(pair[0], depth + 1)] = decode(pair[1], depth + 1)
            except TypeError as exc:
                raise ValueError('malformed dict') from exc
        return out
    raise ValueError('malformed')


class Run:
    """One job: the stubs share whether the candidate is still there to answer."""

    def __init__(self, job):
        self.job = job
        self.gone = None
        self.not_plain = None  # why the current test fails, once an answer was not plain data

    def stub(self, name):
        run = self

        def call(*args, **kwargs):
            if run.gone is not None:
                raise CandidateGone(run.gone)
            # What is left of the test's stdin (empty unless the test replaced sys.stdin).
            stdin = sys.stdin.read() if sys.stdin is not None else ''
            send({'job': run.job, 'call': {'fn': name, 'args': [encode(a) for a in args],
                           'kwargs': [[k, encode(v)] for k, v in kwargs.items()], 'stdin': stdin or None}})
            msg = receive()
            ret = msg.get('ret') if type(msg) is dict else None
            out = msg.get('out') if type(msg) is dict else None
            if type(ret) is not dict:
                run.gone = 'malformed answer'
                raise CandidateGone(run.gone)
            if type(out) is str and out:
                sys.stdout.write(out)
            if 'gone' in ret:
                run.gone = str(ret['gone'])
                raise CandidateGone(run.gone)
            if 'v' in ret:
                try:
                    return decode(ret['v'])
                except (ValueError, OverflowError):
                    run.not_plain = f'not plain data: {name}() returned something else'
                    raise NotPlain(run.not_plain) from None
            err, etype = str(ret.get('err', 'error')), ret.get('etype')
            if etype == NOT_PLAIN:
                run.not_plain = err if err.startswith('not plain data') else f'not plain data: {err}'
                raise NotPlain(run.not_plain)
            cls = EXCEPTIONS.get(etype) if type(etype) is str else None
            if cls is None:
                raise CandidateError(err)
            # The worker sends "Name: message" (or "Name"): raise Name(message), as the candidate did.
            text = err[len(etype) + 2:] if err.startswith(etype + ': ') else '' if err == etype else err
            raise cls(text) if text else cls()

        call.__name__ = call.__qualname__ = name
        return call


def referenced(tree):
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            names.add(node.id)
    return names


def describe(exc):
    if isinstance(exc, SyntaxError):
        return f'SyntaxError: {exc.msg} (line {exc.lineno})'
    text = str(exc)
    return f'{type(exc).__name__}: {text}'[:300] if text else type(exc).__name__


class Capped(io.StringIO):
    def write(self, s):
        room = OUTPUT_CAP - self.tell()
        if room > 0:
            super().write(str(s)[:room])
        return len(s)


def usable(n):
    # Never a builtin's name: a candidate's own `range` or `all` stays its own.
    return type(n) is str and n.isidentifier() and not keyword.iskeyword(n) and n not in BUILTIN_NAMES and not n.startswith('__')


def run_tests(job, tests, names, values):
    run = Run(job)
    # Only names a test reads: functions become stubs, constants their decoded plain value.
    candidate_names = {n for n in names if usable(n)}
    constants, modules = {}, {}
    for n, raw in (values.items() if type(values) is dict else ()):
        if not usable(n) or n in candidate_names:
            continue
        if type(raw) is list and len(raw) == 2 and raw[0] == 'module':
            if raw[1] in MODULES:  # a module the candidate imported (`math` used by a test): ours
                modules[n] = raw[1]
            continue
        try:
            constants[n] = decode(raw)
        except (ValueError, OverflowError):
            pass
    results = []
    for source in tests:
        if run.gone is not None:
            results.append({'ok': False, 'out': f'not run: candidate {run.gone}'})
            continue
        out = Capped()
        ok, why = True, None
        run.not_plain = None
        saved = (sys.stdin, sys.stdout, sys.stderr)
        try:
            tree = ast.parse(source)
            env = {'__name__': '__main__', '__builtins__': builtins}
            used = referenced(tree)
            for n in used & candidate_names:
                env[n] = run.stub(n)
            for n in used & set(modules):
                env[n] = importlib.import_module(modules[n])
            for n in used & set(constants):
                env[n] = decode(values[n])  # a fresh copy: one test's mutation is not the next one's
            code = compile(tree, '<test>', 'exec')
            sys.stdin, sys.stdout, sys.stderr = io.StringIO(''), out, out
            exec(code, env)  # noqa: S102 - the task's own test, in the trusted process
        except BaseException as exc:  # noqa: BLE001 - SystemExit in a test is a failure too
            ok, why = False, describe(exc)
        sys.stdin, sys.stdout, sys.stderr = saved
        if run.gone is not None:
            ok, why = False, f'candidate {run.gone}'
        elif run.not_plain is not None:
            ok, why = False, run.not_plain
        text = out.getvalue()
        results.append({'ok': ok, 'out': text + (why or '') if not ok else text})
    return results


def main():
    send({'ready': True})
    while True:
        job = receive()
        try:
            results = run_tests(job.get('job'), job['tests'], job.get('names') or [], job.get('values') or {})
        except Exception as exc:  # noqa: BLE001
            results = [{'ok': False, 'out': f'checker error: {describe(exc)}'} for _ in job.get('tests', [])]
        send({'job': job.get('job') if type(job) is dict else None, 'done': results})


if __name__ == '__main__':
    main()
