/**
 * Canonical fixtures through the checker: every HumanEval- and MBPP-shaped canonical solution must
 * pass (the MBPP shapes wrap the answer in `set`, `sorted`, `len`, `math.isclose`, `not`, `in`,
 * ordering, `all`/`any`, all run by the checker on plain data) and a wrong version of each must
 * fail. The hostile candidates are in hostile-suite.ts.
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { stdioAssert } from '../../../src/tasks/datasets/codecontests';
import { loadHumanEval } from '../../../src/tasks/datasets/humaneval';
import { loadMbpp } from '../../../src/tasks/datasets/mbpp';
import { createCodeGrader } from '../../../src/tasks/graders';
import { taskOf } from '../graders/completions.fixtures';
import { asTask, FIXTURES } from '../datasets/fixture-files';
import { fenced } from './hostile-suite';

describe('HumanEval-shaped fixtures through the checker', () => {
  const grader = createCodeGrader({ workers: 2 });
  afterAll(() => grader.close());

  /** HumanEval/32: the test seeds its own random.Random and calls the prompt's poly(). */
  const PROMPT32 = 'import math\n\n\ndef poly(xs: list, x: float):\n    return sum([coeff * math.pow(x, i) for i, coeff in enumerate(xs)])\n\n\ndef find_zero(xs: list):\n';
  const CANONICAL32 = `${PROMPT32}    begin, end = -1., 1.\n    while poly(xs, begin) * poly(xs, end) > 0:\n        begin *= 2.0\n        end *= 2.0\n    while end - begin > 1e-10:\n        center = (begin + end) / 2.0\n        if poly(xs, center) * poly(xs, begin) > 0:\n            begin = center\n        else:\n            end = center\n    return begin\n`;
  const TEST32 = [
    'METADATA = {}', '', '', 'def check(candidate):', '    import math', '    import random', '    rng = random.Random(42)', '    import copy',
    '    for _ in range(100):', '        ncoeff = 2 * rng.randint(1, 4)', '        coeffs = []', '        for _ in range(ncoeff):',
    '            coeff = rng.randint(-10, 10)', '            if coeff == 0:', '                coeff = 1', '            coeffs.append(coeff)',
    '        solution = candidate(copy.deepcopy(coeffs))', '        assert math.fabs(poly(coeffs, solution)) < 1e-4', '', '', 'check(find_zero)',
  ].join('\n');
  const task32 = taskOf('code', CANONICAL32, { tests: [TEST32] });

  it('HumanEval/32: the canonical solution passes (the test\'s own seeded Random is the checker\'s), a wrong one fails', async () => {
    expect((await grader.runTests(CANONICAL32, [TEST32])).detail).toBe('1/1 tests passed');
    expect((await grader.grade(fenced(`${PROMPT32}    return 0.0\n`), task32)).reward).toBe(0);
  });

  it('every HumanEval fixture row: canonical passes, a wrong body fails', async () => {
    for (const file of ['humaneval.jsonl', 'humaneval-forms.jsonl']) {
      for (const row of loadHumanEval(join(FIXTURES, file)).rows) {
        const task = asTask(row, 'code');
        expect((await grader.grade(fenced(row.hidden.answer), task)).reward, `${file} ${row.entryPoint}`).toBe(1);
        const wrong = `${row.hidden.prefix ?? ''}\n    return None\n`;
        expect((await grader.grade(fenced(wrong), task)).reward, `${file} ${row.entryPoint} (wrong)`).toBe(0);
      }
    }
  });
});

describe('MBPP-shaped fixtures: operators around the answer, run by the checker', () => {
  const grader = createCodeGrader({ workers: 2 });
  afterAll(() => grader.close());

  it('every MBPP fixture row: canonical passes, a wrong body fails', async () => {
    for (const file of ['mbpp.jsonl', 'mbpp-shapes.jsonl']) {
      for (const row of loadMbpp(join(FIXTURES, file)).rows) {
        const task = asTask(row, 'code');
        const good = await grader.grade(fenced(row.hidden.answer), task);
        expect(good.reward, `${file} ${row.entryPoint}: ${good.detail}`).toBe(1);
        const wrong = `def ${row.entryPoint}(*args, **kwargs):\n    return None\n`;
        expect((await grader.grade(fenced(wrong), task)).reward, `${file} ${row.entryPoint} (wrong)`).toBe(0);
      }
    }
  });
});

describe('what crosses from the candidate to the checker', () => {
  const grader = createCodeGrader({ workers: 1 });
  afterAll(() => grader.close());

  it('ranges, dict views and builtin iterators arrive as themselves; stdout.buffer and stdin.buffer work', async () => {
    const code = [
      'import sys',
      'def m(n):\n    return map(lambda x: x * 2, range(n))',
      'def gen(n):\n    for i in range(n):\n        yield i',
      'def r(n):\n    return range(n)',
      'def ks(d):\n    return d.keys()',
      'def main():\n    a, b = map(int, sys.stdin.buffer.readline().split())\n    sys.stdout.buffer.write(b"%d\\n" % (a + b))',
    ].join('\n');
    const tests = [
      'assert list(m(3)) == [0, 2, 4]',
      'x = m(3)\nassert x != [0, 2, 4] and next(x) == 0',
      'assert sorted(gen(3), reverse=True) == [2, 1, 0]',
      'assert r(3) == range(3) and r(3) != [0, 1, 2]',
      'k = ks({1: 2, 3: 4})\nassert k == {1, 3} and type(k) is type({}.keys())',
      stdioAssert('1 2\n', '3\n'),
    ];
    const r = await grader.runTests(code, tests);
    expect(r.results.map((t) => t.output)).toEqual(tests.map(() => ''));
  });
});
