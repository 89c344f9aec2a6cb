import { BUILTIN_DOMAINS, getDomain } from '../../../src/tasks/domains';
import { afterAll, describe, expect, it } from 'vitest';
import type { Domain, Grader, Task } from '../../../src/tasks/task';
import { taskOf } from './completions.fixtures';

/** One gold task and one correct raw completion per domain. */
const CASES: Record<Domain, { task: Task; good: string }> = {
  math: { task: taskOf('math', '\\frac{3}{4}'), good: '<think>3/4</think>\nSo the answer is $\\boxed{0.75}$.' },
  qa: { task: taskOf('qa', 'Paris', { aliases: ['Paris, France'] }), good: 'The passage names it.\nAnswer: Paris' },
  code: {
    task: taskOf('code', 'def sq(x):\n    return x * x\n', { tests: ['assert sq(3) == 9', 'assert sq(-2) == 4'] }),
    good: '```python\ndef sq(x):\n    return x ** 2\n```',
  },
};

const GARBAGE = ['', '   ', '<think>', '</think>', '\\boxed{', '```', '```python\n', '\u0000\uffff', '}'.repeat(10_000),
  `\\boxed{${'{'.repeat(3000)}}`, 'Answer:', '#### ', 'def f(:\n  pass', 'x'.repeat(200_000)];

/** Inputs that make naive regexes backtrack for minutes; each must come back (and fail) promptly. */
const PATHOLOGICAL = ['`'.repeat(100_000), '<think>'.repeat(20_000), '\\boxed{'.repeat(20_000), `answer${' '.repeat(100_000)}x`,
  `${'\n'.repeat(100_000)}#### `, `final${' '.repeat(100_000)}`, `1 ${'a'.repeat(60)}!`, `\\boxed{1 ${'ab'.repeat(40)}!}`,
  `def ${' '.repeat(100_000)}`, `${'```py\n'.repeat(30_000)}`];

// Every built-in domain's grader: a domain added to the registry needs a case here.
for (const domain of BUILTIN_DOMAINS.map((d) => d.name)) {
  describe(`grader contract: ${domain}`, () => {
    // No input here loops, so the sandbox limit only matters when the machine is loaded: keep it out of reach.
    const grader: Grader = getDomain(domain).createGrader({ codeWorkers: 1, codeTimeoutMs: 30_000 });
    const c = CASES[domain];
    if (!c) throw new Error(`grader contract: no case for domain "${domain}"`);
    const { task, good } = c;
    afterAll(async () => {
      await grader.close?.();
      await grader.close?.(); // idempotent
    });

    it('gives reward 1 and correct to a right answer', async () => {
      const g = await grader.grade(good, task);
      expect(g).toMatchObject({ reward: 1, correct: true });
      expect(g.extracted).not.toBeNull();
    });

    it('never throws on garbage; rewards stay in [0, 1] and garbage is never correct', async () => {
      for (const text of [...GARBAGE, ...PATHOLOGICAL]) {
        expect(() => grader.extract(text)).not.toThrow();
        expect(() => grader.equivalent(text, good)).not.toThrow();
        const g = await grader.grade(text, task);
        expect(g.reward).toBeGreaterThanOrEqual(0);
        expect(g.reward).toBeLessThanOrEqual(1);
        expect(g.correct).toBe(false);
        expect(typeof g.detail).toBe('string');
        // Judged, not cut off: garbage fails on its merits, not by running out of time.
        expect(g.detail).not.toMatch(/timeout/);
      }
    });

    it('is deterministic and treats an extracted answer as equivalent to itself', async () => {
      expect(await grader.grade(good, task)).toEqual(await grader.grade(good, task));
      const answer = grader.extract(good);
      expect(answer).not.toBeNull();
      expect(grader.equivalent(answer!, answer!)).toBe(true);
    });
  });
}
