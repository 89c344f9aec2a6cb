import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { RunProcesses, type ProcessJob } from '../../../src/engine/run/run-processes';

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
});
