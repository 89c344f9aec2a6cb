/**
 * Python's own semantics decide every verdict, under bubblewrap and in the fallback: the forgers of
 * verdict-cases.ts fail, the correct programs pass, and the task's own helpers (HumanEval's poly,
 * encode_cyclic) are never the candidate's copies.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stdioAssert } from '../../../src/tasks/datasets/codecontests';
import { createCodeGrader, type CodeGrader, type TestRunReport } from '../../../src/tasks/graders';
import { taskOf } from '../graders/completions.fixtures';
import { fenced } from './hostile-suite';
import { SEEDED, CANONICAL32, CANONICAL38, CORRECT, FORGER32, FORGER38, FORGERS, HANDLE_FORGERS, HANDLES_CORRECT, PROMPT32, PROMPT38, TEST32, TEST38 } from './verdict-cases';

for (const isolation of ['auto', 'fallback'] as const) {
  describe(`verdicts by Python's semantics (${isolation})`, () => {
    let grader: CodeGrader;
    const reports = new Map<string, TestRunReport>();

    beforeAll(async () => {
      grader = createCodeGrader({ workers: 2, timeoutMs: 2000, allowUnsandboxed: true, isolation, verdictCache: false });
      await Promise.all([...FORGERS, ...HANDLE_FORGERS, ...CORRECT, ...HANDLES_CORRECT].map(async (c) => { reports.set(c.name, await grader.runTests(c.code, c.tests)); }));
    }, 120_000);
    afterAll(() => grader?.close());

    for (const c of [...FORGERS, ...HANDLE_FORGERS]) {
      it(`fails a forger: ${c.name}`, () => {
        const r = reports.get(c.name)!;
        expect(r.results.filter((t) => t.passed).map((t) => t.test)).toEqual([]);
        expect(r.timedOut).toBe(false);
        if (c.output) expect(r.results[0]!.output).toMatch(c.output);
      });
    }
    for (const c of [...CORRECT, ...HANDLES_CORRECT]) {
      it(`passes a correct program: ${c.name}`, () => {
        const r = reports.get(c.name)!;
        expect(r.results.filter((t) => !t.passed).map((t) => `${t.test} -> ${t.output}`)).toEqual([]);
      });
    }

    it('runs the task\'s own helpers: the canonical solutions pass, a candidate\'s own poly or encode_cyclic cannot forge', async () => {
      const task32 = taskOf('code', `${PROMPT32}${CANONICAL32}`, { tests: [TEST32] });
      const t32 = { ...task32, entryPoint: 'find_zero', hidden: { ...task32.hidden, prefix: PROMPT32 } };
      const task38 = taskOf('code', `${PROMPT38}${CANONICAL38}`, { tests: [TEST38] });
      const t38 = { ...task38, entryPoint: 'decode_cyclic', hidden: { ...task38.hidden, prefix: PROMPT38 } };
      expect((await grader.grade(fenced(`${PROMPT32}${CANONICAL32}`), t32)).detail).toBe('1/1 tests passed');
      expect((await grader.grade(CANONICAL32, t32)).detail).toBe('1/1 tests passed');
      expect((await grader.grade(fenced(FORGER32), t32)).reward).toBe(0);
      expect((await grader.grade(fenced(`${PROMPT38}${CANONICAL38}`), t38)).detail).toBe('1/1 tests passed');
      expect((await grader.grade(fenced(FORGER38), t38)).reward).toBe(0);
      // The same forgers pass when the task brings no helpers: the helpers are what stops them.
      expect((await grader.grade(fenced(FORGER38), task38)).reward).toBe(1);
    });

    it('runs stdin programs that read open(0) or write with os.write(1, ...), in the order they wrote', async () => {
      const tests = [stdioAssert('1 2\n', '3\nok\n'), stdioAssert('10 5\n', '15\nok\n')];
      const programs = [
        'import os\ndef main():\n    a, b = map(int, open(0).read().split())\n    os.write(1, b"%d\\n" % (a + b))\n    print("ok")',
        'import os, sys\ndef main():\n    a, b = map(int, os.read(0, 100).split())\n    print(a + b)\n    sys.stdout.flush()\n    os.write(1, b"ok\\n")',
        'import sys\ndef main():\n    a, b = map(int, sys.stdin.buffer.read().split())\n    sys.stdout.buffer.write(b"%d\\nok\\n" % (a + b))',
      ];
      for (const code of programs) expect((await grader.runTests(code, tests)).detail, code).toBe('2/2 tests passed');
      expect((await grader.runTests(programs[0]!.replace('a + b', 'a - b'), tests)).passed).toBe(0);
    });

    it('seeds random and the string hash in every candidate process: the same draws on every run', async () => {
      const runs = await Promise.all([1, 2, 3].map(() => grader.runTests(SEEDED.code, [SEEDED.test])));
      const printed = runs.map((r) => r.results[0]!.output);
      expect(printed[0]).toMatch(/^\[0\.844421851525/);
      expect(new Set(printed).size).toBe(1);
    });
  });
}
