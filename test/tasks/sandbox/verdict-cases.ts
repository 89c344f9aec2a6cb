/**
 * Programs whose verdict Python's own semantics decide (verdict.test.ts): forgers that once passed
 * through a comparison made outside Python (sets and dicts compared one way, strings merged by
 * JSON, numbers through doubles, StopIteration steering map(), helpers the candidate redefined, a
 * checker pinned by a huge answer) must fail; correct programs that once failed (standard
 * containers and numbers, exception subclasses, huge ints) must pass. Each runs as a split probe
 * where the splitter can split its test, and as a script the checker runs.
 */
export interface VerdictCase {
  readonly name: string;
  readonly code: string;
  readonly tests: readonly string[];
  readonly pass: boolean;
  /** What the first failure must say (forgers whose reason matters). */
  readonly output?: RegExp;
}

/** A candidate that makes its encoder answer `wire` (tagged plain JSON) whenever f() returns 'FORGE'. */
const forging = (wire: string): string => `import sys
_m = sys.modules.get('__main__')
_enc = getattr(_m, 'encode_plain', None)
def _forged(v, *a, **k):
    if v == 'FORGE':
        return ${wire}
    return _enc(v, *a, **k)
if _enc is not None:
    _m.encode_plain = _forged
def f(*args):
    return 'FORGE'
`;
/** The test as a probe (one call against a literal) and as a script. */
const both = (assertion: string): string[] => [`assert ${assertion}`, `_v = 0\nassert ${assertion}`];

export const FORGERS: readonly VerdictCase[] = [
  { name: 'a set of one right member repeated', code: forging("['set', [['int', '1']] * 6]"), tests: both('f(12) == {1, 2, 3, 4, 6, 12}'), pass: false },
  { name: 'a dict of one right pair repeated', code: forging("['dict', [[['int', '1'], ['int', '1']]] * 3]"), tests: both('f() == {1: 1, 2: 4, 3: 9}'), pass: false },
  { name: 'an astral character and its surrogate pair in one set', code: "def f():\n    return {'\\U0001F600', '\\ud83d\\ude00'}\n", tests: both("f() == {'\\U0001F600', 'x'}"), pass: false },
  { name: 'a surrogate pair for an astral character', code: "def f():\n    return '\\ud83d\\ude00'\n", tests: both("f() == '\\U0001F600'"), pass: false },
  { name: 'dict keys of surrogates for astral characters', code: "def f():\n    return {'\\ud83d\\ude00': 1}\n", tests: both("f() == {'\\U0001F600': 1}"), pass: false },
  { name: 'a complex built from a float sum against a big int', code: 'def f():\n    return complex(2.0 ** 60 + 1, 0)\n', tests: both('f() == 2**60 + 1'), pass: false },
  { name: 'an answer 1,000 too large under an exact tolerance', code: 'def f():\n    return 100000000000000013345\n', tests: both('abs(f() - 100000000000000012345) < 1'), pass: false },
  { name: 'isclose of an int past the float range', code: 'def f():\n    return 2 * 10**400\n', tests: both('math.isclose(f(), 10**400)').map((t) => `import math\n${t}`), pass: false, output: /OverflowError/ },
  { name: 'StopIteration ending map() early', code: 'def f(x):\n    raise StopIteration\n', tests: ['assert all(map(f, [1, 2, 3]))', 'assert list(filter(f, [1, 2])) == []'], pass: false, output: /CandidateError: StopIteration/ },
  { name: 'KeyboardInterrupt past the test\'s except Exception', code: 'def f():\n    raise KeyboardInterrupt\n', tests: ['try:\n    f()\n    ok = False\nexcept Exception:\n    ok = True\nassert ok is False'], pass: false },
  { name: 'the test sums a range of 10**12 it got back', code: 'def f():\n    return range(0, 10**12)\n', tests: ['assert sum(f()) == 5'], pass: false, output: /checker limit/ },
  { name: 'a 4.1-million-digit int', code: 'def f():\n    return 10 ** 4_100_000\n', tests: both('f() == 1'), pass: false, output: /not plain data/ },
];

/** HumanEval/32's prompt (its helper poly) and /38's (encode_cyclic): the task's, not the candidate's. */
export const PROMPT32 = 'import math\n\n\ndef poly(xs: list, x: float):\n    """Evaluates polynomial with coefficients xs at point x."""\n    return sum([coeff * math.pow(x, i) for i, coeff in enumerate(xs)])\n\n\ndef find_zero(xs: list):\n    """ xs are coefficients of a polynomial. find_zero find x such that poly(x) = 0. """\n';
export const TEST32 = 'def check(candidate):\n    import math\n    import random\n    rng = random.Random(42)\n    import copy\n    for _ in range(20):\n        ncoeff = 2 * rng.randint(1, 4)\n        coeffs = []\n        for _ in range(ncoeff):\n            coeff = rng.randint(-10, 10)\n            if coeff == 0:\n                coeff = 1\n            coeffs.append(coeff)\n        solution = candidate(copy.deepcopy(coeffs))\n        assert math.fabs(poly(coeffs, solution)) < 1e-4\n\ncheck(find_zero)';
export const CANONICAL32 = '    begin, end = -1., 1.\n    while poly(xs, begin) * poly(xs, end) > 0:\n        begin *= 2.0\n        end *= 2.0\n    while end - begin > 1e-10:\n        center = (begin + end) / 2.0\n        if poly(xs, center) * poly(xs, begin) > 0:\n            begin = center\n        else:\n            end = center\n    return begin\n';
export const FORGER32 = 'import math\n\ndef poly(xs, x):\n    return 0\n\ndef find_zero(xs):\n    return 0.0\n';
export const PROMPT38 = 'def encode_cyclic(s: str):\n    """returns encoded string by cycling groups of three characters."""\n    groups = [s[(3 * i):min((3 * i + 3), len(s))] for i in range((len(s) + 2) // 3)]\n    groups = [(group[1:] + group[0]) if len(group) == 3 else group for group in groups]\n    return "".join(groups)\n\n\ndef decode_cyclic(s: str):\n    """takes as input string encoded with encode_cyclic function. Returns decoded string."""\n';
export const TEST38 = 'def check(candidate):\n    from random import randint, choice\n    import string\n    letters = string.ascii_lowercase\n    for _ in range(20):\n        str = "".join(choice(letters) for i in range(randint(10, 20)))\n        encoded_str = encode_cyclic(str)\n        assert candidate(encoded_str) == str\n\ncheck(decode_cyclic)';
export const CANONICAL38 = '    return encode_cyclic(encode_cyclic(s))\n';
export const FORGER38 = '_stash = []\n\ndef encode_cyclic(s):\n    _stash.append(s)\n    return s\n\ndef decode_cyclic(s):\n    return _stash[-1] if _stash else s\n';

export const CORRECT: readonly VerdictCase[] = [
  { name: 'a Counter', code: 'from collections import Counter\ndef f():\n    return Counter("aab")\n', tests: both("f() == {'a': 2, 'b': 1}"), pass: true },
  { name: 'a defaultdict', code: 'from collections import defaultdict\ndef f():\n    d = defaultdict(list)\n    d[1].append(2)\n    return d\n', tests: both('f() == {1: [2]}'), pass: true },
  { name: 'an OrderedDict', code: 'from collections import OrderedDict\ndef f():\n    return OrderedDict([(2, 1), (1, 2)])\n', tests: both('f() == {1: 2, 2: 1}'), pass: true },
  { name: 'a namedtuple', code: 'from collections import namedtuple\nP = namedtuple("P", "x y")\ndef f():\n    return P(1, 2)\n', tests: both('f() == (1, 2)'), pass: true },
  { name: 'a Fraction', code: 'from fractions import Fraction\ndef f():\n    return Fraction(1, 3)\n', tests: ['from fractions import Fraction\nassert f() == Fraction(1, 3)', 'assert f() != 0.3333333333333333', 'assert f() * 3 == 1'], pass: true },
  { name: 'a Decimal', code: 'from decimal import Decimal\ndef f():\n    return Decimal("0.1")\n', tests: ['from decimal import Decimal\nassert f() == Decimal("0.1")', 'assert f() != 0.1'], pass: true },
  { name: 'dict.keys()', code: 'def f():\n    return {1: 0, 2: 0}.keys()\n', tests: both('f() == {1, 2}'), pass: true },
  { name: 'an IntEnum member', code: 'import enum\nclass C(enum.IntEnum):\n    A = 3\ndef f():\n    return C.A\n', tests: both('f() == 3'), pass: true },
  { name: 'a ValueError subclass the test catches as ValueError', code: 'class Bad(ValueError):\n    pass\ndef f():\n    raise Bad("no")\n', tests: ['try:\n    f()\nexcept ValueError:\n    pass\nelse:\n    assert False'], pass: true },
  { name: 'an int of 5,000 digits', code: 'def f():\n    return 10 ** 5000 + 7\n', tests: both('f() == 10 ** 5000 + 7'), pass: true },
  { name: 'a lone surrogate', code: "def f():\n    return '\\ud83d'\n", tests: both("f() == '\\ud83d'"), pass: true },
  { name: 'an astral character', code: "def f():\n    return {'\\U0001F600': '\\U0001F600'}\n", tests: both("f() == {'\\U0001F600': '\\U0001F600'}"), pass: true },
  { name: 'an exact big-int tolerance', code: 'def f():\n    return 100000000000000012345\n', tests: both('abs(f() - 100000000000000012345) < 1'), pass: true },
];

/**
 * Tests that hand the candidate a function, mutate an argument through it, drive its objects
 * through their methods or consume its generators lazily: run through handles (sandbox_calls.py,
 * checker_handles.py). Each is correct Python and must pass.
 */
export const HANDLES_CORRECT: readonly VerdictCase[] = [
  {
    name: 'callables passed as arguments (a lambda, a builtin, a test\'s def, a key, a call-back calling the candidate again)',
    code: 'def apply(f, x):\n    return f(x)\ndef sort_by(xs, key):\n    return sorted(xs, key=key)\ndef double(x):\n    return 2 * x\n',
    tests: [
      'assert apply(lambda x: x + 1, 3) == 4', 'assert apply(abs, -3) == 3', 'def inc(v):\n    return v + 1\nassert apply(inc, 1) == 2',
      "assert sort_by(['bb', 'a', 'ccc'], len) == ['a', 'bb', 'ccc']", 'assert sort_by([3, 1, 2], key=lambda v: -v) == [3, 2, 1]',
      'assert apply(lambda x: apply(abs, x), -5) == 5', 'assert apply(lambda g: g(-2), abs) == 2', 'assert apply(double, 4) == 8',
    ],
    pass: true,
  },
  {
    name: 'arguments mutated in place (a list sorted, a dict filled, a set grown, a nested list keeping its identity)',
    code: 'def f(xs):\n    xs.sort()\ndef add_key(d):\n    d["k"] = 1\ndef add_one(s):\n    s.add(1)\ndef push_inner(m):\n    m[0].append(9)\n    m.append([])\n',
    tests: [
      'xs = [3, 1, 2]\nf(xs)\nassert xs == [1, 2, 3]', 'xs=[3,1,2]; f(xs); assert xs==[1,2,3]', "d = {}\nadd_key(d)\nassert d == {'k': 1}",
      's = set()\nadd_one(s)\nassert s == {1}', 'inner = [1]\nm = [inner]\npush_inner(m)\nassert inner == [1, 9] and m[0] is inner and m == [[1, 9], []]',
      'xs = (3, 1)\ntry:\n    f(xs)\nexcept AttributeError:\n    pass\nassert xs == (3, 1)',
    ],
    pass: true,
  },
  {
    name: 'objects used through their methods (a stack, a linked list iterated, a LeetCode Solution)',
    code: [
      'class Stack:\n    def __init__(self):\n        self.items = []\n    def push(self, x):\n        self.items.append(x)\n    def pop(self):\n        return self.items.pop()\n    def peek(self):\n        return self.items[-1]\n    def is_empty(self):\n        return not self.items\n    def __len__(self):\n        return len(self.items)\n',
      'class Node:\n    def __init__(self, v, nxt=None):\n        self.v, self.next = v, nxt\n',
      'class LinkedList:\n    def __init__(self, xs):\n        self.head = None\n        for x in reversed(xs):\n            self.head = Node(x, self.head)\n    def __iter__(self):\n        n = self.head\n        while n:\n            yield n.v\n            n = n.next\n    def __str__(self):\n        return "->".join(map(str, self))\n',
      'class Solution:\n    def twoSum(self, nums, target):\n        seen = {}\n        for i, x in enumerate(nums):\n            if target - x in seen:\n                return [seen[target - x], i]\n            seen[x] = i\n',
    ].join(''),
    tests: [
      's = Stack(); s.push(1); assert s.pop() == 1',
      's = Stack()\nfor i in range(5):\n    s.push(i)\nassert len(s) == 5 and s.peek() == 4 and not s.is_empty() and s.items == [0, 1, 2, 3, 4]',
      'll = LinkedList([1, 2, 3])\nassert list(ll) == [1, 2, 3] and 2 in ll and str(ll) == "1->2->3"',
      'll = LinkedList([4, 5])\nassert ll.head.next.v == 5 and ll.head.next.next is None',
      'assert Solution().twoSum([2, 7, 11, 15], 9) == [0, 1]',
    ],
    pass: true,
  },
  {
    name: 'generators consumed lazily (an infinite one through islice and next, one past the prefetch, one that raises where the test never reaches)',
    code: 'def gen():\n    i = 0\n    while True:\n        yield i\n        i += 1\ndef squares(n):\n    for i in range(n):\n        yield i * i\ndef then_fail():\n    yield from range(3)\n    raise ValueError("past the end")\ndef boom():\n    raise TypeError("no")\n    yield 1\n',
    tests: [
      'from itertools import islice\nassert list(islice(gen(), 5)) == [0, 1, 2, 3, 4]', 'g = gen()\nassert next(g) == 0 and next(g) == 1',
      'from itertools import islice\nassert list(islice(gen(), 2500))[-1] == 2499', 'assert sum(squares(3000)) == sum(i * i for i in range(3000))',
      'for x in gen():\n    if x == 1500:\n        break\nelse:\n    assert False',
      'g = then_fail()\nassert [next(g) for _ in range(3)] == [0, 1, 2]', 'try:\n    list(then_fail())\nexcept ValueError as e:\n    assert str(e) == "past the end"\nelse:\n    assert False',
      'try:\n    list(boom())\nexcept TypeError as e:\n    assert str(e) == "no"\nelse:\n    assert False',
    ],
    pass: true,
  },
];

/**
 * What handles must not open: a candidate's object compared (its own __eq__ never decides a check),
 * a handle forged for a plain function's answer, a generator that never ends, a candidate's
 * StopIteration steering the test's map(), a candidate calling a test's function back without end.
 */
export const HANDLE_FORGERS: readonly VerdictCase[] = [
  {
    name: 'an object whose __eq__ says yes, compared, put in a set, found with in',
    code: 'class Yes:\n    def __eq__(self, o):\n        return True\n    def __hash__(self):\n        return 0\n    def __bool__(self):\n        return True\n    def __contains__(self, o):\n        return True\n    def __iter__(self):\n        return iter([Yes()])\nclass Make:\n    def __new__(cls, *a):\n        return Yes()\n',
    tests: ['assert Make() == 5', 'assert [Make()] == [5]', 'assert 5 in [Make()]', 'assert {Make()} == {5}', 'x = Make()\ntry:\n    assert x == 5\nexcept Exception:\n    pass\nassert True', 'assert 5 in Make()'],
    pass: false, output: /not plain data: Make\(\) returned a Yes/,
  },
  {
    name: 'a handle forged for a plain function\'s answer',
    code: "import sys\n_m = sys.modules.get('sandbox_calls')\n_enc = _m.encode_plain if _m else None\ndef _forged(v, *a, **k):\n    if v is None:\n        return ['obj', 0, 'Ok']\n    return _enc(v, *a, **k)\nif _m:\n    _m.encode_plain = _forged\nclass Ok:\n    def ok(self):\n        return True\n_keep = Ok()\ndef f():\n    return None\n",
    tests: ['assert f().ok()', 'x = f()\nassert x is not None'],
    pass: false, output: /not plain data/,
  },
  {
    name: 'a generator that never ends, consumed whole',
    code: 'def gen():\n    while True:\n        yield 1\n',
    tests: ['assert sum(gen()) == 10'],
    pass: false, output: /more than a million items|checker limit/,
  },
  {
    name: 'a candidate\'s StopIteration ending the test\'s map() early, from a method and from a generator',
    code: 'class V:\n    def check(self, x):\n        raise StopIteration\ndef gen():\n    yield 1\n    raise StopIteration\n',
    tests: ['assert all(map(V().check, [1, 2]))', 'assert list(filter(V().check, [1, 2])) == []', 'assert list(gen()) == [1]'],
    pass: false,
  },
  {
    name: 'a call-back that lies about its handle, and one the test\'s function raises StopIteration into',
    code: 'def apply(f, x):\n    try:\n        f.__closure__[0].cell_contents = 99\n    except Exception:\n        pass\n    return f(x)\ndef count_until_stop(f):\n    n = 0\n    for _ in map(f, range(10)):\n        n += 1\n    return n\n',
    tests: ['assert apply(lambda x: x + 1, 1) == 2', 'assert count_until_stop(lambda x: next(iter([])) if x == 3 else x) == 10'],
    pass: false,
  },
  {
    name: 'a test that hands the candidate eval, open or an os function: never called back in the checker',
    code: "def run(f):\n    return f(\"__import__('builtins').__dict__.update(AssertionError=None) or 2\")\n",
    tests: ['assert run(eval) == 2', 'assert run(open) is not None', 'import os\nassert run(os.getenv) is None', 'import functools\nassert run(functools.partial(eval)) == 2'],
    pass: false, output: /is not plain data: an argument cannot be sent to the candidate/,
  },
];

/** A program that draws from `random` (and iterates a set of strings): seeded, so one verdict every run. */
export const SEEDED = { code: 'import random\ndef f():\n    return [random.random() for _ in range(3)] + list({"a", "b", "c", "d"})\n', test: 'print(f())\nassert False' };
