import { afterAll, describe, expect, it } from 'vitest';
import { createCodeGrader, loadVerdict, storeVerdict, VERDICTS } from '../../../src/tasks/graders/code-grader';
import { VerdictCache } from '../../../src/tasks/graders/verdict-cache';
import { taskOf } from './completions.fixtures';

describe('verdict cache', () => {
  it('runs one computation for concurrent requests of a key and keeps it', async () => {
    const cache = new VerdictCache<number>(4);
    let runs = 0;
    const compute = async () => { runs++; await new Promise((r) => setTimeout(r, 5)); return { value: 7, keep: true }; };
    const got = await Promise.all([cache.get('k', compute), cache.get('k', compute)]);
    expect(got).toEqual([7, 7]);
    expect(await cache.get('k', compute)).toBe(7);
    expect(runs).toBe(1);
    expect(cache.hits).toBe(1);
  });

  it('never keeps a value marked not to keep, nor a rejected run', async () => {
    const cache = new VerdictCache<string>(4);
    let runs = 0;
    const timeout = async () => { runs++; return { value: 'timeout', keep: false }; };
    await cache.get('t', timeout);
    await cache.get('t', timeout);
    expect(runs).toBe(2);
    await expect(cache.get('x', async () => { throw new Error('sandbox down'); })).rejects.toThrow('sandbox down');
    expect(await cache.get('x', async () => ({ value: 'ok', keep: true }))).toBe('ok');
    expect(cache.size).toBe(1);
  });

  it('evicts the least recently used key past its capacity', async () => {
    const cache = new VerdictCache<number>(2);
    const v = (n: number) => async () => ({ value: n, keep: true });
    await cache.get('a', v(1));
    await cache.get('b', v(2));
    await cache.get('a', v(1)); // a is now the most recent
    await cache.get('c', v(3)); // b goes
    let recomputed = false;
    await cache.get('b', async () => { recomputed = true; return { value: 2, keep: true }; });
    expect(recomputed).toBe(true);
    expect(cache.size).toBe(2);
  });

  it('keys on every part', () => {
    expect(VerdictCache.key(['p', ['t'], [1]])).toBe(VerdictCache.key(['p', ['t'], [1]]));
    expect(VerdictCache.key(['p', ['t'], [1]])).not.toBe(VerdictCache.key(['p', ['t'], [2]]));
    expect(VerdictCache.key(['p', ['t1', 't2'], [1]])).not.toBe(VerdictCache.key(['p', ['t1t2'], [1]]));
  });
});

describe('verdict cache shared across a sweep\'s workers', () => {
  it('tells listeners each verdict it ran and kept, never a timeout nor one put into it', async () => {
    const cache = new VerdictCache<string>();
    const told: [string, string][] = [];
    cache.onKept((k, v) => told.push([k, v]));
    await cache.get('a', async () => ({ value: 'pass', keep: true }));
    await cache.get('t', async () => ({ value: 'timeout', keep: false }));
    cache.put('b', 'fail');
    expect(told).toEqual([['a', 'pass']]);
  });

  it('answers from a verdict put into it without running, and keeps the one it has', async () => {
    const cache = new VerdictCache<string>();
    cache.put('k', 'from another worker');
    let ran = 0;
    expect(await cache.get('k', async () => { ran++; return { value: 'ran here', keep: true }; })).toBe('from another worker');
    cache.put('k', 'second copy');
    expect(await cache.get('k', async () => { ran++; return { value: 'ran here', keep: true }; })).toBe('from another worker');
    expect(ran).toBe(0);
    expect(cache.hits).toBe(2);
    const small = new VerdictCache<number>(2);
    for (const k of ['x', 'y', 'z']) small.put(k, 1);
    expect(small.size).toBe(2);
  });
});

describe('code grader with the verdict cache (real sandbox)', () => {
  const grader = createCodeGrader({ workers: 1, timeoutMs: 20_000, memoryMb: 256, allowUnsandboxed: true });
  const other = createCodeGrader({ workers: 1, timeoutMs: 20_000, memoryMb: 256, allowUnsandboxed: true });
  const limited = createCodeGrader({ workers: 1, timeoutMs: 300, memoryMb: 256, allowUnsandboxed: true });
  afterAll(() => Promise.all([grader.close(), other.close(), limited.close()]));
  // Program text unique to this file, so no other test's verdicts are in the way.
  const task = taskOf('code', 'def triple_vc(x):\n    return 3 * x\n', { tests: ['assert triple_vc(2) == 6', 'assert triple_vc(0) == 0'] });

  it('grades a program once per tests and limits, across graders of the process', async () => {
    const before = { hits: VERDICTS.hits, misses: VERDICTS.misses };
    const good = await grader.grade('```python\ndef triple_vc(x):\n    return 3 * x\n```', task);
    const again = await other.grade('```python\ndef triple_vc(x):\n    return 3 * x\n```', task);
    expect(good).toMatchObject({ reward: 1, detail: '2/2 tests passed' });
    expect(again).toEqual(good);
    expect(VERDICTS.misses - before.misses).toBe(1);
    expect(VERDICTS.hits - before.hits).toBe(1);
    // Other limits are another key: the short-budget grader runs it itself.
    expect(await limited.grade('```python\ndef triple_vc(x):\n    return 3 * x\n```', task)).toMatchObject({ reward: 1 });
    expect(VERDICTS.misses - before.misses).toBe(2);
  });

  it('gives back from the cache the report the sandbox run gave, field for field', async () => {
    const uncached = createCodeGrader({ workers: 1, timeoutMs: 20_000, memoryMb: 256, allowUnsandboxed: true, verdictCache: false });
    try {
      const wrong = 'def triple_vc(x):\n    print("\u00e9t\u00e9 \ud83d\ude00")\n    return 3 * x + (x == 0)\n';
      const tests = ['assert triple_vc(2) == 6', 'assert triple_vc(0) == 0', 'print(triple_vc(1)); assert triple_vc(1) == 4'];
      const ran = await uncached.runTests(wrong, tests);
      expect(ran.passed).toBe(1);
      await grader.runTests(wrong, tests); // kept
      const hits = VERDICTS.hits;
      expect(JSON.stringify(await grader.runTests(wrong, tests))).toBe(JSON.stringify(ran));
      expect(VERDICTS.hits - hits).toBe(1);
    } finally {
      await uncached.close();
    }
  });

  it('stores a verdict as one string and reads the same report back', () => {
    const tests = ['assert f(1) == 1', 'f(2)', 'assert f(3) == 3'];
    const report = {
      passed: 1, total: 3, timedOut: false, error: 'candidate exited with status 3', detail: '1/3 tests passed; first failure: f(2) -> x',
      results: [{ test: tests[0]!, passed: true, output: '' }, { test: tests[1]!, passed: false, output: 'Traceback \ud800 lone' }, { test: tests[2]!, passed: false, output: '' }],
    };
    const stored = storeVerdict({ report: { ...report, results: report.results.slice() }, infrastructure: null });
    expect(typeof stored).toBe('string');
    expect(stored).not.toContain('assert f(1)');
    expect(JSON.stringify(loadVerdict(stored, tests))).toBe(JSON.stringify({ report: { passed: 1, total: 3, results: report.results, timedOut: false, error: report.error, detail: report.detail }, infrastructure: null }));
  });

  it('never caches a timeout: the same looping program runs again', async () => {
    const loop = '```python\ndef triple_vc(x):\n    while True:\n        x += 1\n```';
    const before = VERDICTS.misses;
    const first = await limited.grade(loop, task);
    const second = await limited.grade(loop, task);
    expect(first.detail).toMatch(/^timeout after 300 ms/);
    expect(second.detail).toMatch(/^timeout after 300 ms/);
    expect(VERDICTS.misses - before).toBe(2);
  });
});
