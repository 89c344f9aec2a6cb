/**
 * The hostile suite for the checker design: every candidate in hostile/*.py attacks the verdict or
 * the host, in each test mode (value checks split into probes, script loops and check() bodies run
 * by the checker, stdin/stdout tests); every grade must be 0 and the host untouched. Then every
 * HumanEval-shaped canonical fixture must pass and a wrong version of each must fail.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stdioAssert } from '../../../src/tasks/datasets/codecontests';
import { loadHumanEval } from '../../../src/tasks/datasets/humaneval';
import { createCodeGrader, type CodeGrader } from '../../../src/tasks/graders';
import type { Grade, Task } from '../../../src/tasks/task';
import { taskOf } from '../graders/completions.fixtures';
import { asTask, FIXTURES } from '../datasets/fixture-files';

const HOSTILE_DIR = fileURLToPath(new URL('./hostile/', import.meta.url));
const PROJECT_DIR = fileURLToPath(new URL('../../../', import.meta.url));

/** The wrong program every hostile candidate starts from: add() subtracts, main() prints that. */
const WRONG = 'def add(a, b):\n    return a - b\n\ndef main():\n    a, b = map(int, input().split())\n    print(add(a, b))\n\n';
const GOOD = 'def add(a, b):\n    return a + b\n\ndef main():\n    a, b = map(int, input().split())\n    print(add(a, b))\n';

const MODES: Record<'value' | 'script' | 'stdio', Task> = {
  value: taskOf('code', GOOD, { tests: ['assert add(1, 2) == 3', 'assert add(-1, 1) == 0', 'assert add(10, 5) == 15'] }),
  script: taskOf('code', GOOD, {
    tests: [
      'for a in range(5):\n    for b in range(3):\n        assert add(a, b) == a + b',
      'def check(candidate):\n    assert candidate(4, 5) == 9\n    assert all(candidate(i, i) == 2 * i for i in range(4))\n\ncheck(add)',
      'import random\nrng = random.Random(7)\nfor _ in range(5):\n    a, b = rng.randint(-9, 9), rng.randint(1, 9)\n    assert add(a, b) == a + b',
    ],
  }),
  stdio: taskOf('code', GOOD, { tests: [stdioAssert('1 2\n', '3\n'), stdioAssert('10 5\n', '15\n'), stdioAssert('-1 1\n', '0\n')] }),
};

const hostile = readdirSync(HOSTILE_DIR).filter((f) => f.endsWith('.py')).sort();
const fenced = (code: string) => `\`\`\`python\n${code}\n\`\`\``;

describe('hostile candidates, every test mode', () => {
  let grader: CodeGrader;
  let server: Server;
  let connections = 0;
  let mark = '';
  const grades = new Map<string, Record<string, Grade>>();
  const projectBefore = readdirSync(PROJECT_DIR).sort();

  beforeAll(async () => {
    mark = mkdtempSync(join(tmpdir(), 'evo-hostile-'));
    process.env.EVO_ADVERSARIAL_SECRET = 'leak';
    server = createServer((s) => { connections++; s.destroy(); });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    // A CPU budget no attack needs: each must be stopped by the sandbox, not by the limit.
    grader = createCodeGrader({ workers: 2, timeoutMs: 20_000, allowUnsandboxed: true });
    await Promise.all(hostile.map(async (file) => {
      const code = WRONG + readFileSync(join(HOSTILE_DIR, file), 'utf8')
        .replaceAll('{{MARK}}', mark).replaceAll('{{PROJECT}}', join(PROJECT_DIR, 'package.json')).replaceAll('{{SANDBOX}}', join(PROJECT_DIR, 'src/tasks/graders/sandbox')).replaceAll('{{PORT}}', String(port));
      const entries = await Promise.all(Object.entries(MODES).map(async ([mode, task]) => [mode, await grader.grade(fenced(code), task)] as const));
      grades.set(file, Object.fromEntries(entries));
    }));
  }, 280_000);

  afterAll(async () => {
    await grader?.close();
    server?.close();
    delete process.env.EVO_ADVERSARIAL_SECRET;
    rmSync(mark, { recursive: true, force: true });
  });

  it('has at least 40 hostile candidates', () => {
    expect(hostile.length).toBeGreaterThanOrEqual(40);
  });

  for (const file of hostile) {
    it(`scores 0 in every mode, none by timeout: ${file}`, () => {
      const got = grades.get(file)!;
      const forged = Object.entries(got).filter(([, g]) => g.reward !== 0).map(([mode, g]) => `${mode}: ${g.detail}`);
      expect(forged).toEqual([]);
      const timedOut = Object.entries(got).filter(([, g]) => /^timeout/.test(g.detail)).map(([mode]) => mode);
      expect(timedOut).toEqual([]);
    });
  }

  it('leaves the host untouched: no file written, no connection made, project tree unchanged', () => {
    expect(readdirSync(mark)).toEqual([]);
    expect(connections).toBe(0);
    expect(readdirSync(PROJECT_DIR).sort()).toEqual(projectBefore);
  });

  it('grades the correct program 1 in every mode after the hostile batch', async () => {
    for (const task of Object.values(MODES)) expect((await grader.grade(fenced(GOOD), task)).detail).toMatch(/^3\/3 tests passed$/);
  });

  it('runs the candidate under an unprivileged uid with binding limits and a noexec /tmp', async () => {
    const probe = [
      'import os, threading',
      'def uid():\n    return os.getuid()',
      'def threads():\n    ev = threading.Event()\n    n = 0\n    try:\n        for _ in range(100):\n            threading.Thread(target=ev.wait, daemon=True).start()\n            n += 1\n    except RuntimeError:\n        pass\n    ev.set()\n    return n',
      'def noexec():\n    return bool(os.statvfs("/tmp").f_flag & os.ST_NOEXEC)',
    ].join('\n');
    const r = await grader.runTests(probe, ['assert uid() != 0', 'assert 0 < threads() < 32', 'assert noexec()']);
    const bwrap = grader.isolation.mode === 'bwrap' && !/\(plain/.test(grader.isolation.summary);
    expect(r.results.map((t) => t.passed)).toEqual([true, true, bwrap]);
  });
});

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
