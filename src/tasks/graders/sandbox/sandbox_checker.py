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
  Node -> checker  {"job": id, "tests": [source, ...], "names": [name, ...], "values": {name: tagged},
                    "helpers": JSON [source, entry] | "", "cpuMs": n}
  checker -> Node  {"job": id, "call": {"fn": name, "args": [tagged], "kwargs": [[name, tagged]], "stdin": str|null}}
  Node -> checker  {"ret": {"v": tagged, "mut"?} | {"err": str, "etype": str, "mut"?} | {"gone": str}, "out": str}
  Node -> checker  {"cb": {"k", "args", "kwargs"}} (the candidate calls a test's function back, meanwhile)
  checker -> Node  {"job": id, "cbret": {"v": tagged} | {"err", "etype"} | {"gone": str}}
  A call may also be a use of a handle: {"h": k, "op": ..., "name"?, "args", "kwargs"} (checker_handles.py).
  checker -> Node  {"job": id, "done": [{"ok": bool, "out": str}, ...]}
"""
import ast
import builtins
import functools
import importlib
import io
import json
import keyword
import os
import sys

import resource
import signal

from trusted_plain import decode as decode_plain, encode_trusted, task_helpers  # noqa: E402 - from this file's own directory, before it goes off sys.path
from checker_handles import Handle, LazyIter, sync_into  # noqa: E402

# The sandbox's other modules sit next to this file: tests never import them.
_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if p and os.path.abspath(p) != _HERE]
del sys.modules['trusted_plain'], sys.modules['checker_handles']

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
# Exceptions that steer control flow where they surface (a StopIteration raised in map()'s function
# ends the map early; GeneratorExit and KeyboardInterrupt reach past `except Exception`): one of them
# escaping a candidate call is a CandidateError, never control flow in the test. SystemExit stays
# SystemExit: a stdin program's `sys.exit()` is its normal end, and the stdin harness catches it.
STEERING = frozenset(('StopIteration', 'StopAsyncIteration', 'GeneratorExit', 'KeyboardInterrupt'))
EXCEPTIONS = {n: v for n, v in vars(builtins).items() if isinstance(v, type) and issubclass(v, BaseException)
              and n not in STEERING and n not in ('BaseExceptionGroup', 'ExceptionGroup')}
# Exception classes a candidate defines cross as their name and the builtin bases they derive from
# (`etypes`, nearest first): a ValueError subclass is raised here as a class deriving from ValueError,
# so `except ValueError` catches it, as in Python.
_DERIVED = {}


def derived(name, bases):
    cls = [EXCEPTIONS[b] for b in bases if b in EXCEPTIONS]
    if not cls:
        return None
    key = (name, cls[0])
    if key not in _DERIVED:
        _DERIVED[key] = type(name, (cls[0],), {})
    return _DERIVED[key]



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


def never_called_back(fn):
    """True for a function that may run code or reach state the checker must keep (NEVER_CALLED_BACK)."""
    while type(fn) is functools.partial:
        fn = fn.func
    if id(fn) in NEVER_CALLED_BACK:
        return True
    module = getattr(fn, '__module__', None)
    if type(module) is not str:
        module = getattr(type(fn), '__module__', None) or ''
    return module.split('.')[0] in NEVER_CALLED_BACK_MODULES


def builtin_base(exc):
    """The name of the nearest builtin class of an exception (what the candidate's side raises)."""
    return next((c.__name__ for c in type(exc).__mro__ if getattr(builtins, c.__name__, None) is c), 'Exception')


def decode(raw):
    """Fresh values of exact types from the candidate's tagged answer (trusted_plain.decode: one
    decoder, with its size limits); ValueError when it is anything else."""
    return decode_plain(raw)


# Uses of a candidate's objects, generators and the test's functions it calls back, per job: past
# this the candidate is gone for the job's remaining tests (plain calls are not counted: they are bounded as before).
MAX_HANDLE_OPS = 10_000
# Functions a test may pass that would run the candidate's text as code, or reach files, modules or
# this process's state, in the checker: never handed to the candidate to call back.
NEVER_CALLED_BACK = frozenset(id(getattr(builtins, n)) for n in (
    'eval', 'exec', 'compile', 'open', '__import__', 'getattr', 'setattr', 'delattr', 'globals', 'locals',
    'vars', 'breakpoint', 'input', 'exit', 'quit', 'help', 'memoryview') if hasattr(builtins, n))
NEVER_CALLED_BACK_MODULES = frozenset(('os', 'posix', 'sys', 'importlib', 'subprocess', 'shutil', 'pathlib', 'io', '_io',
                                       'ctypes', 'signal', 'gc', 'inspect', 'pickle', 'marshal', 'socket', 'time'))


class Run:
    """One job: the stubs share whether the candidate is still there to answer, the test's functions
    it was handed (call-backs) and how many uses of handles are left (checker_handles.py)."""

    def __init__(self, job):
        self.job = job
        self.gone = None
        self.not_plain = None  # why the current test fails, once an answer was not plain data
        self.callbacks = []  # k -> a test's function the candidate may call back
        self.stubs = {}  # id -> (name, stub): a stub passed as an argument is the candidate's own function
        self.ops = 0

    def stub(self, name):
        run = self

        def call(*args, **kwargs):
            # A name that starts with a capital letter is a class by Python's naming: its answer may be an object.
            return run.request({'fn': name}, args, kwargs, f'{name}()', name[:1].isupper())

        call.__name__ = call.__qualname__ = name
        self.stubs[id(call)] = (name, call)
        return call

    def refuse(self, why):
        """The NotPlain that fails the current test, whatever it catches."""
        self.not_plain = why
        return NotPlain(why)

    def count(self):
        self.ops += 1
        if self.ops > MAX_HANDLE_OPS:
            self.gone = self.gone or f'was used through handles and call-backs more than {MAX_HANDLE_OPS} times'
            raise CandidateGone(self.gone)

    def handle_of(self, value):
        """How a test's value that is not plain data crosses: a handle, a stub, or a function to call back."""
        if type(value) is Handle:
            return ['obj', value._k]
        stub = self.stubs.get(id(value))
        if stub is not None and stub[1] is value:
            return ['cand', stub[0]]
        if callable(value) and type(value) is not LazyIter and not never_called_back(value):
            self.callbacks.append(value)
            return ['fn', len(self.callbacks) - 1]
        raise TypeError(f'a {type(value).__name__} is not plain data')

    def encode(self, value):
        try:
            return encode_trusted(value, 0, self.handle_of)
        except TypeError as exc:
            raise TypeError(f'{exc}: an argument cannot be sent to the candidate (plain data only)') from None

    def decode(self, raw, label, objects):
        """The candidate's answer: fresh plain values, and handles where `objects` lets it send them."""
        def ext(tag, rest):
            if tag == 'obj' and objects and len(rest) == 2 and type(rest[0]) is int and type(rest[1]) is str:
                return Handle(self, rest[0], label, rest[1])
            if tag == 'lazy' and len(rest) == 2 and type(rest[0]) is int and type(rest[1]) is list:
                return LazyIter(self, rest[0], decode_plain(['list', rest[1]], 0, None, ext), objects, label)
            raise ValueError(f'{tag} is not plain data')
        try:
            return decode_plain(raw, 0, None, ext)
        except (ValueError, OverflowError, RecursionError, MemoryError) as exc:
            raise self.refuse(f'not plain data: {label} returned something else ({exc})') from None

    def request(self, target, args, kwargs, label, objects):
        """Ask the candidate's process one call (`fn`) or one use of a handle (`h`, `op`), serve the
        call-backs it makes meanwhile, and return its answer (or raise what it raised)."""
        if self.gone is not None:
            raise CandidateGone(self.gone)
        if 'h' in target:
            self.count()
        # What is left of the test's stdin (empty unless the test replaced sys.stdin).
        stdin = sys.stdin.read() if sys.stdin is not None else ''
        send({'job': self.job, 'call': {**target, 'args': [self.encode(a) for a in args],
                                        'kwargs': [[k, self.encode(v)] for k, v in kwargs.items()], 'stdin': stdin or None}})
        msg = receive()
        while type(msg) is dict and type(msg.get('cb')) is dict:
            self.call_back(msg['cb'])
            msg = receive()
        ret = msg.get('ret') if type(msg) is dict else None
        out = msg.get('out') if type(msg) is dict else None
        if type(ret) is not dict:
            self.gone = 'malformed answer'
            raise CandidateGone(self.gone)
        if type(out) is str and out:
            sys.stdout.write(out)
        if 'gone' in ret:
            self.gone = self.gone or str(ret['gone'])
            raise CandidateGone(self.gone)
        self.sync(args, kwargs, ret.get('mut'))
        if 'v' in ret:
            return self.decode(ret['v'], label, objects)
        err, etype = str(ret.get('err', 'error')), ret.get('etype')
        if etype == NOT_PLAIN:
            raise self.refuse(err if err.startswith('not plain data') else f'not plain data: {err}')
        if etype in STEERING:
            raise CandidateError(f'{err} (raised by the candidate\'s {label})')
        bases = ret.get('ebases')
        cls = EXCEPTIONS.get(etype) if type(etype) is str else None
        if cls is None and type(bases) is list and type(etype) is str and etype.isidentifier():
            cls = derived(etype, [b for b in bases if type(b) is str])
        if cls is None:
            raise CandidateError(err)
        # The worker sends "Name: message" (or "Name"): raise Name(message), as the candidate did.
        text = err[len(etype) + 2:] if err.startswith(etype + ': ') else '' if err == etype else err
        raise cls(text) if text else cls()

    def call_back(self, cb):
        """Run the test's function the candidate called, on its plain arguments, and answer it."""
        try:
            self.count()
            k = cb.get('k')
            if type(k) is not int or not 0 <= k < len(self.callbacks) or type(cb.get('args')) is not list or type(cb.get('kwargs')) is not list:
                raise self.refuse('not plain data: a call-back out of shape')
            args = [self.decode(a, 'a call-back\'s argument', True) for a in cb['args']]
            kwargs = {p[0]: self.decode(p[1], 'a call-back\'s argument', True) for p in cb['kwargs'] if type(p) is list and len(p) == 2 and type(p[0]) is str}
            ret = {'v': self.encode(self.callbacks[k](*args, **kwargs))}
        except CandidateGone as exc:
            ret = {'gone': str(exc)}
        except NotPlain as exc:
            ret = {'err': str(exc), 'etype': 'TypeError'}  # the test fails whatever the candidate makes of it
        except BaseException as exc:  # noqa: BLE001 - the test's function raised: the candidate sees it, as in Python
            ret = {'err': describe(exc), 'etype': builtin_base(exc)}
        send({'job': self.job, 'cbret': ret})

    def sync(self, args, kwargs, mut):
        """Put what the candidate's call did to the test's lists, dicts and sets into them."""
        for entry in mut if type(mut) is list else ():
            if type(entry) is not list or len(entry) != 2:
                continue
            key, raw = entry
            target = args[key] if type(key) is int and 0 <= key < len(args) else kwargs.get(key) if type(key) is str else None
            if type(target) not in (list, dict, set):
                continue
            try:
                new = decode_plain(raw)
            except (ValueError, OverflowError, RecursionError, MemoryError):
                continue
            if type(new) is type(target):
                sync_into(target, new)


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


def helper_code(helpers):
    """The task's own definitions (code-grader.ts taskHelpers) as a code object, and their names."""
    try:
        source, entry = json.loads(helpers) if helpers else ('', '')
    except (ValueError, TypeError):
        return None, frozenset()
    tree, names = task_helpers(source if type(source) is str else '', entry)
    return (compile(tree, '<task helpers>', 'exec') if tree is not None else None), names


def run_tests(job, tests, names, values, helpers=''):
    run = Run(job)
    helper, helper_names = helper_code(helpers)
    # Only names a test reads: functions become stubs, constants their decoded plain value. A name
    # the task's helpers define is the task's, even when the candidate defines it too.
    candidate_names = {n for n in names if usable(n) and n not in helper_names}
    constants, modules = {}, {}
    for n, raw in (values.items() if type(values) is dict else ()):
        if not usable(n) or n in candidate_names or n in helper_names:
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
            if helper is not None:
                # Stubs for every candidate name the helpers may call, then the task's own code.
                for n in candidate_names - set(env):
                    env[n] = run.stub(n)
                exec(helper, env)  # noqa: S102 - the task's own definitions, in the trusted process
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


# The checker's own limits per job (docs/sandbox-threat-model.md): a test that sums a range of 10**12
# or builds a huge value from an answer must not pin the checker. Each job runs in a child forked for
# it, with RLIMIT_CPU at the job's CPU budget (the kernel ends it with SIGXCPU, then SIGKILL a second
# later: no Python handler that a long C loop could starve) and RLIMIT_AS at MEMORY_MB; when it dies
# that way this process answers for it: every test of the job fails, a verdict on the candidate. The
# fork also keeps one job's tests from changing the checker that runs the next one.
MEMORY_MB = int(os.environ.get('EVO_CHECKER_MEMORY_MB') or 1024)


def limit_job(cpu_ms):
    budget = max(1, -(-int(cpu_ms) // 1000)) if type(cpu_ms) in (int, float) and cpu_ms > 0 else 60
    for res, soft, hard in ((resource.RLIMIT_CPU, budget, budget + 1),
                            (resource.RLIMIT_AS, MEMORY_MB * 1024 * 1024, MEMORY_MB * 1024 * 1024)):
        try:
            _, cur = resource.getrlimit(res)
            if cur != resource.RLIM_INFINITY:
                soft, hard = min(soft, cur), min(hard, cur)
            resource.setrlimit(res, (soft, hard))
        except (ValueError, OSError):
            pass


def run_job(job):
    try:
        if type(job) is not dict:
            raise ValueError('malformed job')
        limit_job(job.get('cpuMs'))
        return run_tests(job.get('job'), job['tests'], job.get('names') or [], job.get('values') or {}, job.get('helpers') or '')
    except Exception as exc:  # noqa: BLE001
        return [{'ok': False, 'out': f'checker error: {describe(exc)}'} for _ in (job.get('tests', []) if type(job) is dict else [])]


def main():
    send({'ready': True})
    while True:
        job = receive()
        job_id = job.get('job') if type(job) is dict else None
        pid = os.fork()
        if pid == 0:
            try:
                signal.signal(signal.SIGXCPU, signal.SIG_DFL)
                send({'job': job_id, 'done': run_job(job)})
            finally:
                os._exit(0)
        _, status = os.waitpid(pid, 0)
        if status != 0:
            killed = os.WIFSIGNALED(status) and os.WTERMSIG(status) in (signal.SIGXCPU, signal.SIGKILL)
            why = f'the tests ran past the {job.get("cpuMs")} ms of CPU time they may spend' if killed else f'the checker ended (status {status})'
            tests = job.get('tests') if type(job) is dict and type(job.get('tests')) is list else []
            out = f'checker limit: {why} on this candidate\'s answers'
            send({'job': job_id, 'done': [{'ok': False, 'out': out} for _ in tests]})


if __name__ == '__main__':
    main()
