"""EvoChamber checker: the trusted side of handles (docs/sandbox-threat-model.md, "Handles").

A candidate's object, or a generator it returned that has more items than were pulled ahead, stays
in the candidate's process; the checker holds a handle to it. Every use of a handle is a request to
the candidate's process (`run.request`, sandbox_checker.py) answered with plain data, or with
another handle: no object of the candidate's ever exists here, and nothing here runs its code.

- `Handle` forwards what a test does to an object through its methods: attributes, calls, items,
  `len`, truth, `str`/`repr`, iteration. It refuses to be compared, ordered or hashed: a
  candidate's own `__eq__` never decides a check, so comparing one fails the test as an answer that
  is not plain data (as it did before handles), also inside the test's own `try`. `in` iterates it
  and compares each item with the checker's `==` (a candidate's `__contains__` is never asked).
- `LazyIter` yields the items pulled ahead, then pulls the rest in batches as the test consumes
  it, at most LIMITS['items'] in all. A candidate's iterator ends only by saying it is exhausted:
  a StopIteration it raises is the candidate's error (sandbox_checker.STEERING), never the end of
  the test's loop.
- `sync_into` puts the new contents of an argument the candidate mutated into the test's own
  list, dict or set, keeping the identity of the lists and dicts inside it.
"""
import collections

from trusted_plain import LIMITS


class Handle:
    """One of the candidate's objects, used through what it does (see the module's doc)."""

    __slots__ = ('_run', '_k', '_path', '_what')

    def __init__(self, run, k, path, type_name):
        # `path`: how the test reached it (`Stack()`, `LinkedList().head`), for failures.
        self._run, self._k, self._path = run, k, path
        self._what = f'{path} returned a {type_name}'

    def _op(self, op, args=(), kwargs=None, name=None):
        target = {'h': self._k, 'op': op, **({'name': name} if name is not None else {})}
        label = f'{self._path}.{name}' if op == 'getattr' else f'{self._path}()' if op == 'call' else f'{op}({self._path})'
        return self._run.request(target, args, kwargs or {}, label, True)

    def __getattr__(self, name):
        if name.startswith('__'):
            raise AttributeError(name)
        return self._op('getattr', name=name)

    def __call__(self, *args, **kwargs):
        return self._op('call', args, kwargs)

    def __iter__(self):
        it = self._op('iter')
        return LazyIter(self._run, it._k, [], True, f'iter({self._path})') if type(it) is Handle else it

    def __next__(self):
        raise TypeError('a handle is iterated through iter()')

    def __len__(self):
        return self._answer(self._op('len'), int)

    def __bool__(self):
        return self._answer(self._op('bool'), bool)

    def __contains__(self, item):
        # By its items, with the checker's own `==` (Python's rule for a container without
        # __contains__): the candidate's own __contains__ would be its __eq__ by another name.
        for x in self:
            if x is item or x == item:
                return True
        return False

    def __getitem__(self, key):
        return self._op('getitem', (key,))

    def __str__(self):
        return self._answer(self._op('str'), str)

    def __repr__(self):
        return self._answer(self._op('repr'), str)

    def _answer(self, value, kind):
        if type(value) is not kind:
            raise self._run.refuse(f'not plain data: {self._what}, and its answer is not a {kind.__name__}')
        return value

    def _refuse(self, *_args):
        raise self._run.refuse(f'not plain data: {self._what}')

    __eq__ = __ne__ = __lt__ = __le__ = __gt__ = __ge__ = __hash__ = _refuse


class LazyIter:
    """A candidate's iterator, its items pulled ahead first, the rest pulled as the test asks."""

    def __init__(self, run, k, items, objects, path):
        self._run, self._k, self._objects, self._path = run, k, objects, path
        self._buf = collections.deque(items)
        self._pulled = len(items)
        self._more = True

    def __iter__(self):
        return self

    def __next__(self):
        while not self._buf:
            if not self._more:
                raise StopIteration
            batch = self._run.request({'h': self._k, 'op': 'next'}, (), {}, f'next({self._path})', self._objects)
            if type(batch) is not tuple or len(batch) != 2 or type(batch[0]) is not list or type(batch[1]) is not bool:
                raise self._run.refuse(f'not plain data: {self._path} returned a batch of items out of shape')
            items, self._more = batch
            self._pulled += len(items)
            if self._pulled > LIMITS['items']:
                raise self._run.refuse(f'not plain data: {self._path} returned an iterator of more than a million items')
            if not items:
                self._more = False
            self._buf.extend(items)
        return self._buf.popleft()

    def __eq__(self, other):
        return self is other

    __hash__ = object.__hash__


MUTABLE = (list, dict)


def _synced(old, new, depth):
    """`new`, or `old` with `new`'s contents when both are lists or both dicts (its identity kept)."""
    if type(old) in MUTABLE and type(new) is type(old) and depth < LIMITS['depth']:
        sync_into(old, new, depth + 1)
        return old
    return new


def sync_into(old, new, depth=0):
    """Make the test's `old` (a list, dict or set) hold `new`'s contents, as the candidate's call left them."""
    if type(old) is set:
        old.clear()
        old.update(new)
    elif type(old) is list:
        kept = [_synced(old[i], v, depth) if i < len(old) else v for i, v in enumerate(new)]
        old[:] = kept
    elif type(old) is dict:
        kept = {k: _synced(old[k], v, depth) if k in old else v for k, v in new.items()}
        old.clear()
        old.update(kept)
