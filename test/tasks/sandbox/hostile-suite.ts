/**
 * The hostile suite for the checker design, run by hostile-bwrap.test.ts and hostile-fallback.test.ts:
 * every candidate in hostile/*.py attacks the verdict or the host, in each test mode (value checks
 * split into calls, script loops and check() bodies run by the checker, stdin/stdout tests, and the assert shapes whose operators wrap the candidate's
 * answers: `in`, ordering, truthiness, `is`, `not`, all/any/len/set/sorted/math.isclose), under
 * bubblewrap and under the fallback; every grade must be 0, no shape test may pass on its own, and
 * the host stays untouched. hostile.test.ts runs the HumanEval- and MBPP-shaped canonical fixtures:
 * each must pass and a wrong version of each must fail.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stdioAssert } from '../../../src/tasks/datasets/codecontests';
import { createCodeGrader, type CodeGrader, type TestRunReport } from '../../../src/tasks/graders';
import type { Grade, Task } from '../../../src/tasks/task';
import { taskOf } from '../graders/completions.fixtures';

const HOSTILE_DIR = fileURLToPath(new URL('./hostile/', import.meta.url));
const PROJECT_DIR = fileURLToPath(new URL('../../../', import.meta.url));

/**
 * The wrong program every hostile candidate starts from: add() subtracts, is_sum() returns a number
 * (never True), nonzero() is None for add(2, 2), main() prints add's answer.
 */
const HELPERS = 'def is_sum(a, b, c):\n    return {IS_SUM}\n\ndef nonzero(a, b):\n    s = add(a, b)\n    return s if s else None\n\n';
const MAIN = 'def main():\n    a, b = map(int, input().split())\n    print(add(a, b))\n';
const WRONG = `def add(a, b):\n    return a - b\n\n${HELPERS.replace('{IS_SUM}', 'add(a, b) - c')}${MAIN}\n`;
const GOOD = `def add(a, b):\n    return a + b\n\n${HELPERS.replace('{IS_SUM}', 'add(a, b) == c')}${MAIN}`;

/**
 * One test per assert shape whose operators wrap the candidate's answer. Each passes for GOOD and
 * fails for WRONG; a hostile candidate may pass one only by answering its calls right, which none does.
 */
const SHAPES = [
  'assert add(1, 2) in (3, 30)',
  'assert add(5, 1) > 5',
  'assert 2 < add(1, 2) <= 3',
  'assert all(add(x, 1) == x + 1 for x in [1, 2, 3])',
  'xs = [1, 2, 3]\nassert all(add(x, 1) == x + 1 for x in xs)',
  'assert any(add(x, x) == 4 for x in [2])',
  'assert add(2, 2)',
  'assert bool(add(2, 2))',
  'assert is_sum(1, 2, 3) is True',
  'assert is_sum(1, 2, 3) == True',
  'assert add(3, 2) != 1',
  'assert nonzero(2, 2) is not None',
  'assert set(add([1], [2])) == {1, 2}',
  'assert set(add((1,), (2,))) == set((1, 2))',
  'assert sorted(add([3], [1])) == [1, 3]',
  'assert len(add([1], [2])) == 2',
  'assert max(add(1, 2), 0) == 3',
  'import math\nassert math.isclose(add(0.5, 0.25), 0.75)',
  'assert not add(1, -1)',
  'assert add(1, -1) == False',
  'assert isinstance(add(1, 2), int) and add(1, 2) == 3',
];

export const MODES: Record<'value' | 'script' | 'stdio' | 'shapes', Task> = {
  value: taskOf('code', GOOD, { tests: ['assert add(1, 2) == 3', 'assert add(-1, 1) == 0', 'assert add(10, 5) == 15'] }),
  script: taskOf('code', GOOD, {
    tests: [
      'for a in range(5):\n    for b in range(3):\n        assert add(a, b) == a + b',
      'def check(candidate):\n    assert candidate(4, 5) == 9\n    assert all(candidate(i, i) == 2 * i for i in range(4))\n\ncheck(add)',
      'import random\nrng = random.Random(7)\nfor _ in range(5):\n    a, b = rng.randint(-9, 9), rng.randint(1, 9)\n    assert add(a, b) == a + b',
    ],
  }),
  stdio: taskOf('code', GOOD, { tests: [stdioAssert('1 2\n', '3\n'), stdioAssert('10 5\n', '15\n'), stdioAssert('-1 1\n', '0\n')] }),
  shapes: taskOf('code', GOOD, { tests: SHAPES }),
};

const hostile = readdirSync(HOSTILE_DIR).filter((f) => f.endsWith('.py')).sort();
export const fenced = (code: string) => `\`\`\`python\n${code}\n\`\`\``;

/** The whole hostile batch through one pool of the given isolation (one test file per isolation). */
export function hostileSuite(isolation: 'auto' | 'fallback'): void {
describe(`hostile candidates, every test mode (${isolation === 'auto' ? 'bubblewrap where the host has it' : 'fallback'})`, () => {
  let grader: CodeGrader;
  let server: Server;
  let connections = 0;
  let mark = '';
  const grades = new Map<string, Record<string, Grade>>();
  /** Each shape test on its own: a pass of any one would be a forge. */
  const shapes = new Map<string, TestRunReport>();
  const projectBefore = readdirSync(PROJECT_DIR).sort();

  beforeAll(async () => {
    mark = mkdtempSync(join(tmpdir(), 'evo-hostile-'));
    process.env.EVO_ADVERSARIAL_SECRET = 'leak';
    server = createServer((s) => { connections++; s.destroy(); });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    // A CPU budget no attack needs: each must be stopped by the sandbox, not by the limit.
    grader = createCodeGrader({ workers: 2, timeoutMs: 20_000, allowUnsandboxed: true, isolation });
    await Promise.all(hostile.map(async (file) => {
      const code = WRONG + readFileSync(join(HOSTILE_DIR, file), 'utf8')
        .replaceAll('{{MARK}}', mark).replaceAll('{{PROJECT}}', join(PROJECT_DIR, 'package.json')).replaceAll('{{SANDBOX}}', join(PROJECT_DIR, 'src/tasks/graders/sandbox')).replaceAll('{{PORT}}', String(port));
      const entries = await Promise.all(Object.entries(MODES).map(async ([mode, task]) => [mode, await grader.grade(fenced(code), task)] as const));
      grades.set(file, Object.fromEntries(entries));
      shapes.set(file, await grader.runTests(code, SHAPES));
    }));
  }, 180_000);

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
      const passed = shapes.get(file)!.results.filter((r) => r.passed).map((r) => r.test);
      expect(passed).toEqual([]);
    });
  }

  it('fails a non-plain answer with a reason that says so', () => {
    const always = shapes.get('52-always-true-comparisons.py')!.results;
    expect(always.every((r) => /not plain data/.test(r.output)), always.map((r) => `${r.test} -> ${r.output}`).join('\n')).toBe(true);
  });

  it('leaves the host untouched: no file written, no connection made, project tree unchanged', () => {
    expect(readdirSync(mark)).toEqual([]);
    expect(connections).toBe(0);
    expect(readdirSync(PROJECT_DIR).sort()).toEqual(projectBefore);
  });

  it('grades the correct program 1 in every mode after the hostile batch, and the wrong one passes no shape', async () => {
    for (const task of Object.values(MODES)) expect((await grader.grade(fenced(GOOD), task)).detail).toBe(`${task.hidden.tests!.length}/${task.hidden.tests!.length} tests passed`);
    expect((await grader.runTests(WRONG, SHAPES)).passed).toBe(0);
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
}
