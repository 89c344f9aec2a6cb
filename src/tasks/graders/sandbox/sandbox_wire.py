"""EvoChamber sandbox wire: what crosses the pipes between the worker and a candidate's process.

Records are JSON lines, read within a limit (`read_line`); a candidate's values cross as tagged
plain JSON, encoded here by the builtin types' own slots (`encode_plain`: never a method of the
value's own class) and the checker's arguments decoded here (`decode_plain`). Imported by the
worker (sandbox_worker.py) and the call child (sandbox_calls.py); the trusted side has its own
decoder (trusted_plain.py), which believes nothing this file sends.
"""
import decimal
import fractions
import io
import json
import os
import re
import select
import time

MB = 1024 * 1024
# The harness's own clock, bound before a candidate's Watch wraps time.monotonic: the child's own
# reads of its request pipe never count as the candidate reading the clock.
MONOTONIC = time.monotonic
OUTPUT_CAP = 2000
RECORD_CAP = 4 * MB
CALL_OUTPUT_CAP = 1 * MB  # what a call may print (a stdin/stdout test's answer)
PLAIN_DEPTH = 100
NOT_PLAIN = 'NotPlainData'  # the etype of an answer that is not plain data (sandbox_checker.py)



class CappedText(io.StringIO):
    """stdout/stderr stand-in that keeps only the first `cap` characters."""

    def __init__(self, cap=OUTPUT_CAP):
        super().__init__()
        self.cap = cap

    def write(self, s):
        room = self.cap - self.tell()
        if room > 0:
            super().write(str(s)[:room])
        return len(s)


def describe(exc):
    if isinstance(exc, SyntaxError):
        return f'SyntaxError: {exc.msg} (line {exc.lineno})'
    text = str(exc)
    return f'{type(exc).__name__}: {text}'[:300] if text else type(exc).__name__


def write_all(fd, data):
    while data:
        data = data[os.write(fd, data):]



class Wall:
    """A plain wall-clock limit (for the worker's own reads, never for a candidate)."""

    def __init__(self, seconds):
        self.end = MONOTONIC() + seconds

    def wait(self):
        return self.end - MONOTONIC()



def read_line(fd, buf, limit):
    """One newline-terminated record from fd (bytes without the newline), or None on EOF, once
    `limit` (a Wall or a Budget) is spent, or on an oversized record. `buf` is a one-element
    list holding leftover bytes."""
    while True:
        nl = buf[0].find(b'\n')
        if nl >= 0:
            line, buf[0] = buf[0][:nl], buf[0][nl + 1:]
            return line
        if len(buf[0]) > RECORD_CAP:
            return None
        remaining = limit.wait()
        if remaining <= 0:
            return None
        ready, _, _ = select.select([fd], [], [], remaining)
        if not ready:
            continue
        data = os.read(fd, 65536)
        if not data:
            return None
        buf[0] += data


# --- values crossing back as data -------------------------------------------------------------

# Iterators a function may return (a test then reads them with list(), sorted(), set(), ...).
ITERATOR_TYPES = tuple({type(x) for x in (
    iter([]), iter(()), iter(''), iter(range(0)), iter(set()), iter({}), iter({}.values()), iter({}.items()),
    (x for x in ()), map(abs, ()), filter(None, ()), zip(), enumerate(()), reversed([]), reversed(range(0)))})
DICT_VIEWS = {type({}.keys()): 'keys', type({}.values()): 'values', type({}.items()): 'items'}
MAX_ITEMS = 10 ** 6



FRACTION, DECIMAL = fractions.Fraction, decimal.Decimal
DECIMAL_BITS = 14000  # larger ints cross as hex (linear, no int_max_str_digits): trusted_plain.py
INT_BITS = 1 << 20  # an int past this is not plain data (the checker never parses a giant)
SURROGATE = re.compile('[\ud800-\udfff]')
# Builtin types whose subclasses cross as their builtin data (an IntEnum member as its int, a
# namedtuple as its tuple, a Counter or OrderedDict as its dict), read by the builtin's own C slots:
# the subclass's methods are never called, and the checker compares the data with Python's ==.
DATA_BASES = (int, float, complex, str, bytes, tuple, list, frozenset, set, dict)


def encode_int(value):
    if int.bit_length(value) <= DECIMAL_BITS:
        return ['int', int.__repr__(value)]
    if int.bit_length(value) > INT_BITS:
        raise TypeError(f'returned an int of more than {INT_BITS} bits')
    text = int.__format__(value, 'x')
    return ['int', '-0x' + text[1:] if text[:1] == '-' else '0x' + text]


def encode_str(value):
    # JSON merges a surrogate pair with the astral character it spells: such strings cross as code points.
    if SURROGATE.search(value) is None:
        return ['str', value]
    return ['strcp', [ord(c) for c in value]]


def data_type(t):
    """The builtin type whose data a value of type `t` crosses as, or None."""
    if t in DATA_BASES or t is bool or t is FRACTION or t is DECIMAL:
        return t
    for base in DATA_BASES:
        if type.__subclasscheck__(base, t):
            return base
    return None


def encode_plain(value, depth=0, wide=False, ext=None):
    """Tagged plain JSON for a value of a builtin type (or a subclass's builtin data), Fraction or
    Decimal; raises TypeError otherwise. Never calls a method of the value's own class (only the
    builtin types' own slots). `wide` (answers to calls) also takes ranges, dict views and builtin
    iterators, which cross as their own tags (an iterator as the items it yields), never as lists.
    `ext` (the call child's answers: sandbox_calls.py) turns iterators and other values into handles."""
    t = type(value)
    if depth > PLAIN_DEPTH:
        raise TypeError('value nested too deeply')
    if value is None:
        return ['none']
    b = data_type(t)
    if b is bool:
        return ['bool', value is True]
    if b is int:
        return encode_int(value)
    if b is float:
        return ['float', float.__repr__(value)]
    if b is str:
        return encode_str(str.__str__(value))
    if b is bytes:
        return ['bytes', bytes.hex(value)]
    if b is complex:
        return ['complex', float.__repr__(complex.real.__get__(value)), float.__repr__(complex.imag.__get__(value))]
    if b is FRACTION:
        return ['fraction', encode_int(int(value.numerator))[1], encode_int(int(value.denominator))[1]]
    if b is DECIMAL:
        return ['decimal', DECIMAL.__str__(value)]
    if b is list or b is tuple:
        return ['list' if b is list else 'tuple', [encode_plain(v, depth + 1, wide, ext) for v in b.__iter__(value)]]
    if b is set or b is frozenset:
        return ['set', [encode_plain(v, depth + 1, wide, ext) for v in b.__iter__(value)]]
    if b is dict:
        return ['dict', [[encode_plain(k, depth + 1, wide, ext), encode_plain(v, depth + 1, wide, ext)] for k, v in dict.items(value)]]
    if wide and t is range:
        return ['range', int.__repr__(value.start), int.__repr__(value.stop), int.__repr__(value.step)]
    if wide and t in DICT_VIEWS:
        return [DICT_VIEWS[t], [encode_plain(v, depth + 1, wide, ext) for v in t.__iter__(value)]]
    if wide and t in ITERATOR_TYPES and ext is not None:
        return ext.iterator(value, depth)
    if wide and t in ITERATOR_TYPES:
        items = []
        for v in value:
            if len(items) >= MAX_ITEMS:
                raise TypeError('returned an iterator of more than a million items')
            items.append(encode_plain(v, depth + 1, wide, ext))
        return ['iter', items]
    if ext is not None:
        return ext.other(value)
    raise TypeError(f'returned a {t.__name__}')


def exception_bases(exc):
    """Names of the builtin exception classes the candidate's exception derives from, nearest first."""
    try:
        return [c.__name__ for c in type.__getattribute__(type(exc), '__mro__')[1:]
                if type(c) is type and c.__module__ == 'builtins' and issubclass(c, BaseException)][:8]
    except Exception:  # noqa: BLE001
        return []



def wait_end(req, rep, buf, watch):
    """After a failed load: answer the worker's {"end"} with what the load touched, then return."""
    while True:
        line = read_line(req, buf, Wall(3600))
        if line is None:
            return
        if json.loads(line).get('end') is True:
            return report_touched(rep, watch)


def report_touched(rep, watch):
    """The child's last record: the sources of nondeterminism its candidate touched (the worker asks
    with {"end": true}; the grader runs the program again when there are any)."""
    write_all(rep, (json.dumps({'touched': watch.touched()}) + '\n').encode())



def decode_plain(raw, depth=0, ext=None):
    """Values from the checker's tagged arguments (the task's own test data); `ext(tag, rest)`
    reads the tags of handles (`fn`, `cand`, `obj`: sandbox_calls.py)."""
    tag, rest = raw[0], raw[1:]
    if depth > PLAIN_DEPTH:
        raise ValueError('argument nested too deeply')
    if tag == 'none':
        return None
    if tag == 'bool':
        return bool(rest[0])
    if tag == 'int':
        return int(rest[0], 16) if 'x' in rest[0] else int(rest[0])
    if tag == 'float':
        return float(rest[0])
    if tag == 'str':
        return str(rest[0])
    if tag == 'strcp':
        return ''.join(chr(c) for c in rest[0])
    if tag == 'fraction':
        return FRACTION(int(rest[0], 0), int(rest[1], 0))
    if tag == 'decimal':
        return DECIMAL(rest[0])
    if tag == 'bytes':
        return bytes.fromhex(rest[0])
    if tag == 'complex':
        return complex(float(rest[0]), float(rest[1]))
    if tag in ('list', 'tuple', 'set'):
        items = [decode_plain(v, depth + 1, ext) for v in rest[0]]
        return items if tag == 'list' else tuple(items) if tag == 'tuple' else set(items)
    if tag == 'dict':
        return {decode_plain(k, depth + 1, ext): decode_plain(v, depth + 1, ext) for k, v in rest[0]}
    if ext is not None and tag in ('fn', 'cand', 'obj'):
        return ext(tag, rest)
    raise ValueError('unknown tag ' + str(tag))


