import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { RunProcesses, type ProcessJob } from '../../../src/engine/run/run-processes';
import { VERDICTS } from '../../../src/tasks/graders/code-grader';

describe('run processes: one code verdict cache for the sweep', () => {
  it('relays each verdict a worker kept to every other worker, never back to its sender', async () => {
    const pool = new RunProcesses(path.resolve('test/fixtures/verdict-relay-child.ts'), 2);
    try {
      const job = {} as ProcessJob;
      const [a, b] = await Promise.all([pool.run(job), pool.run(job)]);
      const [x, y] = [a, b].map((r) => r.summary as unknown as { heard: string[]; self: string }) as [{ heard: string[]; self: string }, { heard: string[]; self: string }];
      expect(x.heard).toEqual([y.self]);
      expect(y.heard).toEqual([x.self]);
    } finally {
      await pool.close();
    }
  }, 60_000);

  it('passes the verdicts this process keeps (its own runs of the sweep) to the workers, and keeps theirs', async () => {
    const pool = new RunProcesses(path.resolve('test/fixtures/verdict-relay-child.ts'), 1);
    try {
      const run = pool.run({} as ProcessJob);
      await VERDICTS.get('from-this-process', async () => ({ value: { report: 'pass' } as never, keep: true }));
      const r = (await run).summary as unknown as { heard: string[]; self: string };
      expect(r.heard).toEqual(['from-this-process']);
      // The worker's verdict was put into this process's cache: asking for it runs nothing.
      let ran = false;
      await VERDICTS.get(r.self, async () => { ran = true; return { value: {} as never, keep: true }; });
      expect(ran).toBe(false);
    } finally {
      await pool.close();
      VERDICTS.clear();
    }
  }, 60_000);
});
