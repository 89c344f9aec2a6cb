"""Tagged plain JSON on the trusted side: the one encoder of the tests' own values, the one decoder
of a candidate's answers, and Python's own operators over them (one equality, Python's).

Imported by the checker (sandbox_checker.py) and the splitter (test_splitter.py). Both run outside
the candidate's sandbox. The candidate's side has its own encoder (sandbox_worker.py), which never
calls a method of the value's class; whatever it sends is only data: `decode` rebuilds fresh values
of exact types (builtins, Fraction, Decimal), so no object of the candidate's ever exists here, and
every comparison is Python's own `==`, `abs`, `<`, `math.isclose` on those values (sets and dicts as
Python compares them, ints of any size, exact rationals, what Python raises, raised).

Wire format (docs/sandbox-threat-model.md): `['none'] | ['bool', b] | ['int', decimal | '0x'hex]
| ['float', repr] | ['complex', re, im] | ['str', s] | ['strcp', [code point, ...]] (a string with a
surrogate, which JSON would merge with an astral character) | ['bytes', hex] | ['fraction', n, d] |
['decimal', s] | ['list'|'tuple'|'set', items] | ['dict', [[k, v], ...]]`, and in answers also
`['range', a, b, c] | ['keys'|'values'|'items'|'iter', items]`.

Limits (a value past one is not plain data, a failure of the candidate, never work for the checker):
depth LIMITS['depth'], LIMITS['items'] items in all, ints of LIMITS['int_bits'] bits.
"""
import decimal
import fractions
import math
import re

LIMITS = {'depth': 100, 'items': 10 ** 6, 'int_bits': 1 << 20}
# Ints up to this many bits cross as decimal (what they always did); larger ones as hex, which
# converts in linear time and knows no int_max_str_digits.
DECIMAL_BITS = 14000
SURROGATE = re.compile('[\ud800-\udfff]')
DECIMAL_TEXT = 5000
FRACTION, DECIMAL = fractions.Fraction, decimal.Decimal


def encode_int(value):
    if int.bit_length(value) <= DECIMAL_BITS:
        return ['int', int.__repr__(value)]
    text = int.__format__(value, 'x')
    return ['int', '-0x' + text[1:] if text.startswith('-') else '0x' + text]


def encode_str(value):
    if SURROGATE.search(value) is None:
        return ['str', value]
    return ['strcp', [ord(c) for c in value]]


def encode_trusted(value, depth=0, ext=None):
    """Tagged plain JSON of a value of an exact type the wire knows; anything else is `ext(value)`
    (the checker's handles: sandbox_checker.py), else a TypeError."""
    t = type(value)
    if depth > LIMITS['depth']:
        raise TypeError('value nested too deeply')
    if value is None:
        return ['none']
    if t is bool:
        return ['bool', value]
    if t is int:
        return encode_int(value)
    if t is float:
        return ['float', repr(value)]
    if t is str:
        return encode_str(value)
    if t is bytes:
        return ['bytes', value.hex()]
    if t is complex:
        return ['complex', repr(value.real), repr(value.imag)]
    if t is FRACTION:
        return ['fraction', encode_int(value.numerator)[1], encode_int(value.denominator)[1]]
    if t is DECIMAL:
        return ['decimal', str(value)]
    if t is list or t is tuple:
        return ['list' if t is list else 'tuple', [encode_trusted(v, depth + 1, ext) for v in value]]
    if t is set or t is frozenset:
        return ['set', [encode_trusted(v, depth + 1, ext) for v in value]]
    if t is dict:
        return ['dict', [[encode_trusted(k, depth + 1, ext), encode_trusted(v, depth + 1, ext)] for k, v in value.items()]]
    if ext is not None:
        return ext(value)
    raise TypeError(f'a {t.__name__} is not plain data')


INT_TEXT = re.compile(r'-?(0x[0-9a-f]+|[0-9]+)')
FLOAT_TEXT = re.compile(r'-?(inf|nan|[0-9]+\.?[0-9]*(e[-+]?[0-9]+)?|\.[0-9]+(e[-+]?[0-9]+)?)', re.I)
DECIMAL_RE = re.compile(r'-?(Infinity|NaN|sNaN|[0-9]+\.?[0-9]*(E[-+]?[0-9]+)?|\.[0-9]+(E[-+]?[0-9]+)?)', re.I)


class Budget:
    """How many more items one value may hold."""

    def __init__(self):
        self.items = LIMITS['items']

    def take(self, n):
        self.items -= n
        if self.items < 0:
            raise ValueError(f'more than {LIMITS["items"]} items')


def decode_int(s):
    if type(s) is not str or INT_TEXT.fullmatch(s) is None:
        raise ValueError('malformed int')
    if 'x' in s:
        if (len(s) - 3) * 4 > LIMITS['int_bits']:
            raise ValueError(f'an int of more than {LIMITS["int_bits"]} bits')
        return int(s, 16)
    if len(s) > DECIMAL_TEXT:
        raise ValueError('a decimal int too long for the wire (large ints cross as hex)')
    return int(s)


def decode_float(s):
    if type(s) is not str or FLOAT_TEXT.fullmatch(s) is None:
        raise ValueError('malformed float')
    return float(s)


def decode(raw, depth=0, budget=None, ext=None):
    """Fresh values of exact types from tagged plain JSON; ValueError when it is anything else or
    past a limit. Nothing of the sender survives but the data itself. `ext(tag, rest)` reads the
    tags of handles (`obj`, `lazy`: sandbox_checker.py) where the caller takes them; else they are
    malformed like any unknown tag."""
    budget = budget or Budget()
    if depth > LIMITS['depth']:
        raise ValueError('value nested too deeply')
    if type(raw) is not list or not raw or type(raw[0]) is not str:
        raise ValueError('malformed')
    budget.take(1)
    tag, rest = raw[0], raw[1:]
    n = len(rest)
    if tag == 'none' and n == 0:
        return None
    if tag == 'bool' and n == 1 and type(rest[0]) is bool:
        return rest[0]
    if tag == 'int' and n == 1:
        return decode_int(rest[0])
    if tag == 'float' and n == 1:
        return decode_float(rest[0])
    if tag == 'str' and n == 1 and type(rest[0]) is str:
        return str(rest[0])
    if tag == 'strcp' and n == 1 and type(rest[0]) is list:
        budget.take(len(rest[0]))
        if not all(type(c) is int and 0 <= c <= 0x10FFFF for c in rest[0]):
            raise ValueError('malformed code points')
        return ''.join(map(chr, rest[0]))
    if tag == 'bytes' and n == 1 and type(rest[0]) is str:
        return bytes.fromhex(rest[0])
    if tag == 'complex' and n == 2:
        return complex(decode_float(rest[0]), decode_float(rest[1]))
    if tag == 'fraction' and n == 2:
        den = decode_int(rest[1])
        if den <= 0:
            raise ValueError('malformed fraction')
        return FRACTION(decode_int(rest[0]), den)
    if tag == 'decimal' and n == 1 and type(rest[0]) is str and len(rest[0]) <= DECIMAL_TEXT and DECIMAL_RE.fullmatch(rest[0]):
        return DECIMAL(rest[0])
    if tag == 'range' and n == 3:
        return range(decode_int(rest[0]), decode_int(rest[1]), decode_int(rest[2]) or 1)
    if tag in ('list', 'tuple', 'set', 'iter', 'keys', 'values', 'items') and n == 1 and type(rest[0]) is list:
        items = [decode(v, depth + 1, budget, ext) for v in rest[0]]
        try:
            if tag == 'set':
                return set(items)
            if tag == 'keys':
                return dict.fromkeys(items).keys()
            if tag == 'values':
                return dict(enumerate(items)).values()
            if tag == 'items':
                return dict(items).items()
        except (TypeError, ValueError) as exc:
            raise ValueError(f'malformed {tag}') from exc
        return items if tag == 'list' else tuple(items) if tag == 'tuple' else iter(items)
    if tag == 'dict' and n == 1 and type(rest[0]) is list:
        out = {}
        for pair in rest[0]:
            if type(pair) is not list or len(pair) != 2:
                raise ValueError('malformed dict')
            try:
                out[decode(pair[0], depth + 1, budget, ext)] = decode(pair[1], depth + 1, budget, ext)
            except TypeError as exc:
                raise ValueError('malformed dict') from exc
        return out
    if ext is not None and tag in ('obj', 'lazy'):
        return ext(tag, rest)
    raise ValueError('malformed')


def describe(exc):
    text = str(exc)
    return f'{type(exc).__name__}: {text}'[:300] if text else type(exc).__name__


def _abs_check(op):
    def run(got, check):
        d = abs(got - decode(check['expected']))
        return d < decode(check['tol']) if op == 'abs_lt' else d <= decode(check['tol'])
    return run


# The operator of each split check, applied with Python's own semantics (test_splitter.py).
OPERATORS = {
    'truthy': lambda got, check: bool(got),
    'falsy': lambda got, check: not got,
    'eq': lambda got, check: got == decode(check['expected']),
    'ne': lambda got, check: got != decode(check['expected']),
    'is': lambda got, check: got is decode(check['expected']),
    'isnot': lambda got, check: got is not decode(check['expected']),
    'abs_lt': _abs_check('abs_lt'),
    'abs_le': _abs_check('abs_le'),
    'isclose': lambda got, check: math.isclose(got, decode(check['expected']), rel_tol=decode(check['rel']), abs_tol=decode(check['abs'])),
}


def judge(check, answer):
    """One split check on the candidate's tagged answer: True, False, or what Python raised
    ('OverflowError: ...'); 'not plain data: ...' when the answer does not decode."""
    op = OPERATORS.get(check.get('op')) if type(check) is dict else None
    if op is None:
        return 'malformed check'
    try:
        got = decode(answer)
    except (ValueError, OverflowError, RecursionError, MemoryError) as exc:
        return f'not plain data: {exc}'
    try:
        return bool(op(got, check))
    except Exception as exc:  # noqa: BLE001 - what Python would raise fails the test, as in Python
        return describe(exc)


def task_helpers(source, entry):
    """The task's own definitions its tests call (HumanEval's prompt helpers such as `poly`, MBPP's
    test setup code): the parsed module without the entry point's stub, and the names it binds.
    These names are the task's, never the candidate's: the checker runs this code next to the test."""
    import ast
    if not source:
        return None, frozenset()
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None, frozenset()
    body = [s for s in tree.body if not (isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name == entry)
            and not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
    names = set()
    for stmt in body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(stmt.name)
        elif isinstance(stmt, (ast.Assign, ast.AnnAssign)):
            for target in stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]:
                names.update(n.id for n in ast.walk(target) if isinstance(n, ast.Name))
    return ast.Module(body=body, type_ignores=[]), frozenset(names)
