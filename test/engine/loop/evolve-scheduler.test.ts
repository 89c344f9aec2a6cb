import { describe, expect, it } from 'vitest';
import { EvolveScheduler } from '../../../src/engine/loop/evolve-scheduler';
import type { EvolveOutcome } from '../../../src/engine/loop/evolve-stage';
import type { EvolveTiming } from '../../../src/engine/loop/loop-settings';
import type { TaskOutcome } from '../../../src/engine/loop/task-run';

const n = (evo: EvolveOutcome) => (evo.out as unknown as { n: number }).n;

/** A scheduler whose evolve jobs are ready at once; records what it judged and applied, in order. */
function scheduler(timing: EvolveTiming) {
  const log: string[] = [];
  const s = new EvolveScheduler<number>({
    timing, limit: () => 8,
    run: async (out) => ({ out, version: 0, reflections: [], note: null, dream: null }) as unknown as EvolveOutcome,
    judge: async (evo) => { log.push(`judge ${n(evo)}`); return n(evo); },
    apply: (_evo, judged) => { log.push(`apply ${judged}`); },
  });
  const enqueue = (i: number) => s.enqueue({ n: i } as unknown as TaskOutcome, i);
  return { s, log, enqueue };
}
const drain = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('evolve scheduler', () => {
  it('lag: holds each outcome until the commit a window later, judging it there', async () => {
    const { s, log, enqueue } = scheduler('lag');
    enqueue(0);
    enqueue(1);
    await drain();
    expect(log).toEqual([]);
    expect(s.beforeStarts(false)).toBeUndefined();
    // Before task 2's commit with a window of 2: task 0's outcome.
    await s.beforeCommit(2, 2);
    expect(log).toEqual(['judge 0', 'apply 0']);
  });

  it('when-ready: judges each outcome as soon as it is computed and applies it without waiting for a commit', async () => {
    const { s, log, enqueue } = scheduler('when-ready');
    enqueue(0);
    enqueue(1);
    await drain();
    expect(log).toEqual(['judge 0', 'judge 1', 'apply 0', 'apply 1']);
    expect(s.beforeCommit(5, 2)).toBeUndefined();
  });

  it('sequential: everything queued is applied before tasks start', async () => {
    const { s, log, enqueue } = scheduler('lag');
    enqueue(0);
    enqueue(1);
    const wait = s.beforeStarts(true);
    expect(wait).toBeInstanceOf(Promise);
    await wait;
    expect(log).toEqual(['judge 0', 'apply 0', 'judge 1', 'apply 1']);
  });

  it('rethrows an application failure at the next check', async () => {
    const s = new EvolveScheduler<number>({
      timing: 'instant', limit: () => 1,
      run: async (out) => ({ out, version: 0, reflections: [], note: null, dream: null }) as unknown as EvolveOutcome,
      judge: async () => 0, apply: () => { throw new Error('rejected update'); },
    });
    s.enqueue({ n: 0 } as unknown as TaskOutcome, 0);
    await expect(s.settle()).rejects.toThrow('rejected update');
  });
});
