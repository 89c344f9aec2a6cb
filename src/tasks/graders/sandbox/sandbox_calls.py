"""EvoChamber call child: the candidate's process that answers the checker's calls (script tests).

It loads the candidate, lists the names it defines, then answers each call of the checker's, one at
a time, with plain data. The test runs in the checker (sandbox_checker.py), never here. Beyond
plain calls, four things a test does need more than values (docs/sandbox-threat-model.md,
"Handles"):

- Objects used through their methods: calling a candidate name that starts with a capital letter
  (a class, by Python's naming) may answer with an object; it stays here, and crosses as a handle
  `['obj', k, type name]`. The checker then asks for its attributes, calls, items, length, truth,
  `str`/`repr` and iteration (never for `in`, `==` or a hash: those are the checker's own) (`{"h": k, "op": ...}`), each answered with plain data or another
  handle. What a method or attribute returns may be a handle too. A plain function's answer never
  is: it must be plain data, as before.
- Lazily consumed generators: an iterator answer is pulled up to PREFETCH items; if it has more, it
  crosses as `['lazy', k, items]` and the checker pulls the rest in batches (`op: next`), as the
  test consumes it. An exception the iterator raises is raised when the test reaches it.
- Callables passed as arguments: a test's function crosses as `['fn', k]`; calling it here sends
  `{"n", "cb": k, "args", "kwargs"}` to the checker, which runs the test's own function on the
  plain arguments and answers `{"cbret": ...}` (meanwhile it may call the candidate again: those
  calls are served here, nested). A candidate name crosses as `['cand', name]` (its own function),
  a handle as `['obj', k]` (its own object).
- In-place mutation of arguments: a list, dict or set argument whose contents the call changed
  comes back in the answer (`"mut": [[position or keyword, tagged], ...]`), and the checker puts
  the new contents into the test's own object.
"""
import contextlib
import io
import json
import os
import sys

from sandbox_wire import (CALL_OUTPUT_CAP, NOT_PLAIN, RECORD_CAP, CappedText, Wall, decode_plain, describe,
                          encode_plain, exception_bases, read_line, report_touched, wait_end, write_all)

PREFETCH = 1000  # items an iterator answer is pulled ahead; each later batch doubles, up to BATCH_MAX
BATCH_MAX = 64 * 1024
MUTABLE = (list, dict, set)
OPS = frozenset(('call', 'getattr', 'iter', 'next', 'len', 'bool', 'str', 'repr', 'getitem'))
_exit = os._exit  # bound before any candidate runs: a call-back the checker refuses ends the process


def builtin_exceptions():
    import builtins
    return {n: v for n, v in vars(builtins).items() if isinstance(v, type) and issubclass(v, BaseException)}


EXCEPTIONS = builtin_exceptions()


class Raised(Exception):
    """An exception an iterator raised while pulled: the candidate's own, never a value's failure to encode."""

    def __init__(self, exc):
        super().__init__()
        self.exc = exc


class Answer:
    """How one answer's values that are not plain data cross: iterators (lazily past PREFETCH) and,
    when `objects` is true, any other value as a handle; else the TypeError of old."""

    def __init__(self, server, objects):
        self.server, self.objects = server, objects

    def iterator(self, it, depth):
        items, more = self.server.pull(it, depth, PREFETCH, self.objects)
        if not more:
            return ['iter', items]
        self.server.iter_objects[id(it)] = self.objects  # its later batches follow the same rule
        return ['lazy', self.server.keep(it), items]

    def other(self, value):
        if not self.objects:
            raise TypeError(f'returned a {type(value).__name__}')
        return ['obj', self.server.keep(value), type(value).__name__[:100]]


class Server:
    """The call child's state: the candidate's names, the objects it handed out, the calls open now."""

    def __init__(self, req, rep, buf, tmp, env):
        self.req, self.rep, self.buf, self.tmp, self.env = req, rep, buf, tmp, env
        self.objects = []  # handle k -> the candidate's object (or iterator)
        self.pending = {}  # id(iterator) -> the exception it raised while pulled ahead
        self.batch = {}  # id(iterator) -> the size of its next batch
        self.iter_objects = {}  # id(iterator) -> whether its items may be objects (see Answer)
        self.open = []  # numbers of the calls being answered, innermost last
        self.saved_fds = (os.dup(0), os.dup(1))  # /dev/null and the child's .stdio, put back after each call

    def read(self):
        line = read_line(self.req, self.buf, Wall(3600))
        return None if line is None else json.loads(line)

    def write(self, rec):
        data = (json.dumps(rec) + '\n').encode()
        if len(data) > RECORD_CAP:
            data = (json.dumps({'n': rec['n'], 'err': 'value too large', 'etype': 'MemoryError', 'out': ''}) + '\n').encode()
        write_all(self.rep, data)

    def keep(self, obj):
        self.objects.append(obj)
        return len(self.objects) - 1

    def pull(self, it, depth, n, objects):
        """Up to n items of `it`, encoded, and whether it may have more. An exception it raises is
        kept for the next pull (raised when the test reaches it), unless it is the first item."""
        items = []
        ext = Answer(self, objects)
        while len(items) < n:
            try:
                item = next(it)
            except StopIteration:
                return items, False
            except BaseException as exc:  # noqa: BLE001 - the iterator's own, raised in turn
                if not items:
                    raise Raised(exc) from None
                self.pending[id(it)] = exc
                return items, True
            items.append(encode_plain(item, depth + 1, True, ext))
        return items, True

    def decoder(self, tag, rest):
        """The candidate-side value of a handle in the checker's arguments."""
        if tag == 'fn' and len(rest) == 1 and type(rest[0]) is int:
            return self.proxy(rest[0])
        if tag == 'cand' and len(rest) == 1 and type(rest[0]) is str and rest[0] in self.env:
            return self.env[rest[0]]
        if tag == 'obj' and len(rest) >= 1 and type(rest[0]) is int and 0 <= rest[0] < len(self.objects):
            return self.objects[rest[0]]
        raise ValueError('unknown handle')

    def proxy(self, k):
        server = self

        def test_function(*args, **kwargs):
            return server.call_back(k, args, kwargs)
        return test_function

    def call_back(self, k, args, kwargs):
        """Call the test's function k in the checker, serving the calls it makes meanwhile."""
        ext = Answer(self, True)
        self.write({'n': self.open[-1], 'cb': k, 'args': [encode_plain(a, 0, True, ext) for a in args],
                    'kwargs': [[key, encode_plain(v, 0, True, ext)] for key, v in kwargs.items()]})
        while True:
            msg = self.read()
            if type(msg) is not dict:
                _exit(3)
            if 'cbret' in msg:
                break
            self.serve(msg)
        ret = msg['cbret']
        if type(ret) is not dict or 'gone' in ret:
            _exit(3)  # the checker gave up on this candidate (too many calls, nested too deep)
        if 'v' in ret:
            return decode_plain(ret['v'], 0, self.decoder)
        cls = EXCEPTIONS.get(ret.get('etype'), Exception)
        raise cls(str(ret.get('err', '')))

    def target(self, msg):
        """What a call invokes, its label for failures, and whether its answer may be an object."""
        if 'fn' in msg:
            name = msg['fn']
            if name not in self.env:
                raise NameError(f"name '{name}' is not defined")
            return self.env[name], name, name[:1].isupper()
        obj = self.decoder('obj', [msg.get('h')])
        op = msg.get('op')
        if op not in OPS:
            raise ValueError('unknown operation')
        label = f'{type(obj).__name__}.{op}'
        if op == 'getattr':
            name = msg.get('name')
            if type(name) is not str or name.startswith('__'):
                raise AttributeError(str(name))
            return (lambda: getattr(obj, name)), label, True
        if op == 'call':
            return obj, label, True
        if op == 'next':
            return (lambda: self.next_batch(obj)), label, True
        single = {'iter': iter, 'len': len, 'bool': bool, 'str': str, 'repr': repr}.get(op)
        if single is not None:
            return (lambda: single(obj)), label, True
        return (lambda key: obj[key]), label, True

    def next_batch(self, it):
        exc = self.pending.pop(id(it), None)
        if exc is not None:
            raise exc
        size = self.batch.get(id(it), PREFETCH)
        self.batch[id(it)] = min(BATCH_MAX, 2 * size)
        items, more = self.pull(it, 0, size, self.iter_objects.get(id(it), True))
        return Batch(items, more)

    def serve(self, msg):
        """Answer one call (or operation on a handle) with {"n", "v"|"err", "out", "mut"?}."""
        n = msg['n']
        top = not self.open
        self.open.append(n)
        out = call_stdio(self.tmp, (msg.get('stdin') or '').encode('utf-8', 'surrogatepass')) if top else None
        saved_in = sys.stdin
        args, kwargs = [], {}
        label = str(msg.get('fn', 'call'))
        try:
            fn, label, objects = self.target(msg)
            args = [decode_plain(a, 0, self.decoder) for a in msg['args']]
            kwargs = {k: decode_plain(v, 0, self.decoder) for k, v in msg['kwargs']}
            if top:
                sys.stdin = io.TextIOWrapper(io.FileIO(0, 'r', closefd=False), encoding='utf-8')
            with contextlib.ExitStack() as stack:
                if top:
                    stack.enter_context(contextlib.redirect_stdout(out))
                    stack.enter_context(contextlib.redirect_stderr(io.StringIO()))
                value = fn(*args, **kwargs)
        except BaseException as exc:  # noqa: BLE001 - SystemExit from main() is an answer too
            rec = raised(n, exc.exc if type(exc) is Raised else exc)
        else:
            try:
                rec = {'n': n, 'v': value.wire if type(value) is Batch else encode_plain(value, 0, True, Answer(self, objects))}
            except Raised as r:  # the iterator it returned raised before its first item
                rec = raised(n, r.exc)
            except (TypeError, ValueError, RecursionError) as exc:
                # Not an exception the test may catch: the checker fails the test (NOT_PLAIN).
                rec = {'n': n, 'err': f'not plain data: {label}() {exc}', 'etype': NOT_PLAIN}
        mut = mutations(msg, args, kwargs)
        if mut:
            rec['mut'] = mut
        sys.stdin = saved_in
        rec['out'] = call_output(out, self.saved_fds).decode('utf-8', 'replace') if top else ''
        self.open.pop()
        self.write(rec)


def raised(n, exc):
    return {'n': n, 'err': describe(exc), 'etype': type(exc).__name__, 'ebases': exception_bases(exc)}


class Batch:
    """The answer to `next`: a batch of items and whether more may follow, as plain data."""

    def __init__(self, items, more):
        self.wire = ['tuple', [['list', items], ['bool', more]]]


def mutations(msg, args, kwargs):
    """The arguments of the checker's (lists, dicts, sets) whose contents the call changed."""
    out = []
    sent = list(enumerate(msg.get('args') or [])) + [(k, v) for k, v in msg.get('kwargs') or []]
    for key, raw in sent:
        value = args[key] if type(key) is int and key < len(args) else kwargs.get(key)
        if type(value) not in MUTABLE or type(raw) is not list or raw[:1] not in (['list'], ['dict'], ['set']):
            continue
        try:
            now = encode_plain(value)
        except (TypeError, ValueError, RecursionError):
            continue  # it now holds something that is not plain data: the checker keeps its own
        if now != raw:
            out.append([key, now])
    return out


def call_child(req, rep, buf, tmp, watch):
    """Load the candidate, list the names it defines, then answer the checker's calls one by one
    (`Server.serve`). This process never holds a test: the tests run in the checker, in another
    process tree. Runs once `confine` is in (see sandbox_worker.candidate_process)."""
    start = json.loads(read_line(req, buf, Wall(3600)) or b'null')
    env = {'__name__': '__candidate__', '__builtins__': __builtins__}
    out = CappedText()
    load = None
    watch.start()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            exec(compile(start['code'], 'candidate.py', 'exec'), env)
    except BaseException as exc:  # noqa: BLE001
        load = describe(exc)
    names, values = [], {}
    for k, v in list(env.items())[:1000]:
        if type(k) is not str or k.startswith('__'):
            continue
        if type(v) is type(sys):
            values[k] = ['module', str(getattr(v, '__name__', ''))]  # the checker imports its own copy
        elif callable(v):
            names.append(k)
        else:
            try:  # a constant the tests may read (`N`, `MOD`): its value, as plain data
                values[k] = encode_plain(v)
            except (TypeError, ValueError, RecursionError):
                pass
    rec = json.dumps({'load': load, 'out': out.getvalue(), 'names': names, 'values': values})
    if len(rec) > RECORD_CAP:
        rec = json.dumps({'load': load, 'out': '', 'names': names, 'values': {}})
    write_all(rep, (rec + '\n').encode())
    if load is not None:
        return wait_end(req, rep, buf, watch)
    server = Server(req, rep, buf, tmp, env)
    while True:
        msg = server.read()
        if msg is None:
            return
        if msg.get('end') is True:
            return report_touched(rep, watch)
        server.serve(msg)


def call_stdio(tmp, stdin):
    """Put a file holding `stdin` on fd 0 and an empty file on fd 1 (both in the candidate's temp
    dir); returns the text stream for the call's sys.stdout, writing through to fd 1."""
    for fd, name, data in ((0, '.call-stdin', stdin), (1, '.call-stdout', b'')):
        f = os.open(os.path.join(tmp, name), os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o600)
        write_all(f, data)
        os.lseek(f, 0, os.SEEK_SET)
        os.dup2(f, fd)
        os.close(f)
    return io.TextIOWrapper(io.FileIO(1, 'w', closefd=False), encoding='utf-8', errors='replace', write_through=True)


def call_output(out, saved_fds):
    """What the call wrote to fd 1 (its first CALL_OUTPUT_CAP bytes); fds 0 and 1 put back."""
    try:
        out.flush()
    except BaseException:  # noqa: BLE001 - a candidate may have closed or broken it
        pass
    data = b''
    try:
        os.lseek(1, 0, os.SEEK_SET)
        while len(data) < CALL_OUTPUT_CAP:
            chunk = os.read(1, CALL_OUTPUT_CAP - len(data))
            if not chunk:
                break
            data += chunk
    except OSError:
        pass
    os.dup2(saved_fds[0], 0)
    os.dup2(saved_fds[1], 1)
    return data
