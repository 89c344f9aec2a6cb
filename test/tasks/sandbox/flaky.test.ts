/**
 * A program whose verdict varies between runs is marked flaky and never cached; a deterministic
 * one pays for one run (nondeterminism.ts, sandbox/sandbox_nondeterminism.py), under bubblewrap
 * and in the fallback. The flaky candidates here are real: they read the kernel's random bytes or
 * the clock, so each call passes about half the time.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCodeGrader, type CodeGrader } from '../../../src/tasks/graders';
import { loadVerdict, storeVerdict, validVerdict, VERDICTS } from '../../../src/tasks/graders/code-grader';
import { taskOf } from '../graders/completions.fixtures';
import { fenced } from './hostile-suite';

/** The test as a probe (one call against a literal) and as a script the checker runs. */
const both = (assertion: string): string[] => [`assert ${assertion}`, `_v = 0\nassert ${assertion}`];
const COIN = 'import os\ndef f(x):\n    return x if os.urandom(1)[0] % 2 else -x\n';
const CLOCK = 'import time\ndef f(x):\n    return x if time.perf_counter_ns() // 1000 % 2 else -x\n';
/** Twenty independent coins: two runs give one pass pattern with probability 2^-20. */
const COINS = Array.from({ length: 10 }, (_, i) => both(`f(${i + 1}) == ${i + 1}`)).flat();
const files = (dir: string): string[] => readdirSync(dir, { recursive: true, withFileTypes: true }).filter((d) => d.isFile()).map((d) => d.name);

for (const isolation of ['auto', 'fallback'] as const) {
  describe(`flaky programs are marked and never frozen (${isolation})`, () => {
    let grader: CodeGrader;
    let dir: string;

    beforeAll(() => {
      dir = mkdtempSync(join(tmpdir(), 'evo-flaky-'));
      grader = createCodeGrader({ workers: 2, timeoutMs: 2000, allowUnsandboxed: true, isolation, verdictDir: dir });
    });
    afterAll(async () => {
      await grader?.close();
      rmSync(dir, { recursive: true, force: true });
    });

    for (const [name, code] of [['os.urandom', COIN], ['the clock', CLOCK]] as const) {
      it(`a program that reads ${name}: run twice, marked flaky, graded again every time, kept nowhere`, async () => {
        const task = taskOf('code', code, { tests: COINS });
        const before = { ...grader.sandboxRuns };
        const first = await grader.grade(fenced(code), task);
        expect(first.flaky).toBe(true);
        expect(first.detail).toMatch(/\[flaky: the verdict varied between two runs; it touched (time|urandom)\]$/);
        expect(grader.sandboxRuns.runs - before.runs).toBe(2);
        expect(grader.sandboxRuns.flaky - before.flaky).toBe(1);
        // Not frozen: the next grade runs it again (twice), in this process and from disk alike.
        const again = await grader.grade(fenced(code), task);
        expect(again.flaky).toBe(true);
        expect(grader.sandboxRuns.runs - before.runs).toBe(4);
        expect(files(dir)).toEqual([]);
      });
    }

    it('a one-test program that passes about half the time: marked flaky once its two runs disagree, never cached', async () => {
      // Each grade's two runs disagree with probability 1/2, so 40 grades all agreeing is 2^-40. A
      // grade whose runs agreed is kept, as a deterministic program's is (the rule's limit): each
      // try is a test of its own (a comment apart), so each is a fresh verdict.
      let flaky: ReturnType<typeof taskOf> | null = null;
      for (let i = 0; i < 40 && flaky === null; i++) {
        const task = taskOf('code', COIN, { tests: [`assert f(3) == 3  # try ${i}`] });
        if ((await grader.grade(fenced(COIN), task)).flaky) flaky = task;
      }
      expect(flaky).not.toBeNull();
      const before = grader.sandboxRuns.runs;
      await grader.grade(fenced(COIN), flaky!);
      expect(grader.sandboxRuns.runs - before).toBe(2);
    });

    it('a deterministic program that touches no source: one run, then the cache', async () => {
      const code = 'def f(x):\n    return x * 2\n';
      const task = taskOf('code', code, { tests: both('f(4) == 8') });
      const before = { ...grader.sandboxRuns };
      const g = await grader.grade(fenced(code), task);
      expect(g).toEqual({ reward: 1, correct: true, extracted: code.trimEnd(), detail: '2/2 tests passed' });
      expect(grader.sandboxRuns.runs - before.runs).toBe(1);
      expect(grader.sandboxRuns.reruns - before.reruns).toBe(0);
      await grader.grade(fenced(code), task);
      expect(grader.sandboxRuns.runs - before.runs).toBe(1);
    });

    it('a deterministic program that reads the clock, starts a thread or names datetime: two runs agree, one verdict kept', async () => {
      const programs = [
        'import time\ndef f(x):\n    t = time.perf_counter()\n    return x * 2\n',
        'import threading\ndef f(x):\n    out = []\n    t = threading.Thread(target=lambda: out.append(x * 2))\n    t.start()\n    t.join()\n    return out[0]\n',
        'import datetime\ndef f(x):\n    return x * 2\n',
        'import random\ndef f(x):\n    r = random.Random()\n    return x * 2 + 0 * r.random()\n',
      ];
      for (const code of programs) {
        const task = taskOf('code', code, { tests: both('f(5) == 10') });
        const before = { ...grader.sandboxRuns };
        const g = await grader.grade(fenced(code), task);
        expect(g.detail, code).toBe('2/2 tests passed');
        expect(g.flaky, code).toBeUndefined();
        expect(grader.sandboxRuns.reruns - before.reruns, code).toBe(1);
        await grader.grade(fenced(code), task);
        expect(grader.sandboxRuns.runs - before.runs, `${code} is cached`).toBe(2);
      }
    });

    it('a process that cannot say what it touched (it ended itself) is run twice, and its agreeing verdict kept', async () => {
      const code = 'import os\ndef f(x):\n    os._exit(0)\n';
      const before = { ...grader.sandboxRuns };
      const r = await grader.runTests(code, ['assert f(1) == 1', '_v = 0\nassert f(1) == 1']);
      expect(r.passed).toBe(0);
      expect(r.flaky).toBeUndefined();
      expect(grader.sandboxRuns.reruns - before.reruns).toBe(1);
      await grader.runTests(code, ['assert f(1) == 1', '_v = 0\nassert f(1) == 1']);
      expect(grader.sandboxRuns.runs - before.runs).toBe(2);
    });

    it('seeded random and string hashes are not sources: one run', async () => {
      const code = 'import random\ndef f():\n    return [random.random() for _ in range(2)] + sorted({"a", "b"})\n';
      const before = { ...grader.sandboxRuns };
      const r = await grader.runTests(code, ['assert len(f()) == 4']);
      expect(r.detail).toBe('1/1 tests passed');
      expect(grader.sandboxRuns.reruns - before.reruns).toBe(0);
    });
  });
}

describe('a flaky verdict as the cache would hold it', () => {
  it('reads back with its mark, and is never taken from disk', () => {
    const tests = ['assert f(1) == 1'];
    const report = { passed: 1, total: 1, results: [{ test: tests[0]!, passed: true, output: '' }], timedOut: false, error: null, detail: '1/1 tests passed [flaky: …]', flaky: ['time'] };
    const stored = storeVerdict({ report, infrastructure: null });
    expect(loadVerdict(stored, tests).report).toEqual(report);
    expect(validVerdict(stored, tests)).toBe(false);
    const { flaky: _, ...steady } = report;
    expect(validVerdict(storeVerdict({ report: steady, infrastructure: null }), tests)).toBe(true);
  });
});

describe('the process-wide cache never holds a flaky verdict', () => {
  it('is not in VERDICTS after grading', async () => {
    const grader = createCodeGrader({ workers: 1, timeoutMs: 2000 });
    try {
      const size = VERDICTS.size;
      const r = await grader.runTests(COIN, COINS);
      expect(r.flaky).toEqual(['urandom']);
      expect(VERDICTS.size).toBe(size);
    } finally {
      await grader.close();
    }
  });
});
