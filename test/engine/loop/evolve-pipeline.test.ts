import { describe, expect, it } from 'vitest';
import { EvolvePipeline } from '../../../src/engine/loop/evolve-pipeline';
import type { EvolveOutcome } from '../../../src/engine/loop/evolve-stage';
import type { TaskOutcome } from '../../../src/engine/loop/task-run';

/** A held pipeline whose jobs are ready at once; records the order outcomes are applied in. */
function held() {
  const applied: number[] = [];
  const pipeline = new EvolvePipeline({
    held: true,
    limit: () => 4,
    run: async (out) => ({ out, version: 0, reflections: [], note: null, dream: null }) as unknown as EvolveOutcome,
    apply: async (evo) => { applied.push((evo.out as unknown as { n: number }).n); },
  });
  const enqueue = (n: number) => pipeline.enqueue({ n } as unknown as TaskOutcome, n);
  return { pipeline, applied, enqueue };
}

/** Let every pending job and application run. */
const drain = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('evolve pipeline, held (lag)', () => {
  it('applies an outcome only once released, even when it is ready earlier', async () => {
    const { pipeline, applied, enqueue } = held();
    enqueue(0);
    enqueue(1);
    await drain();
    expect(applied).toEqual([]);
    await pipeline.applyThrough(1);
    expect(applied).toEqual([0]);
  });

  it('stays held after a settle mid-run: outcomes queued later wait for their release (a meta boundary)', async () => {
    const { pipeline, applied, enqueue } = held();
    enqueue(0);
    enqueue(1);
    await pipeline.settle();
    expect(applied).toEqual([0, 1]);
    enqueue(2);
    enqueue(3);
    await drain();
    expect(applied).toEqual([0, 1]);
    await pipeline.applyThrough(3);
    expect(applied).toEqual([0, 1, 2]);
    await pipeline.settle();
    expect(applied).toEqual([0, 1, 2, 3]);
  });

  it('holds only the outcomes not yet applied, however many were queued and applied', async () => {
    const { pipeline, applied, enqueue } = held();
    for (let n = 0; n < 50; n++) enqueue(n);
    expect(pipeline.pending).toBe(50);
    await pipeline.applyThrough(30);
    await drain();
    expect(applied).toHaveLength(30);
    expect(pipeline.pending).toBe(20);
    await pipeline.settle();
    await drain();
    expect(pipeline.pending).toBe(0);
    // Waiting for outcomes applied long ago still returns.
    await pipeline.applyThrough(10);
  });
});
