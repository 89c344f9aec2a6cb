import { describe, expect, it } from 'vitest';
import { loadScenario } from '../../../../src/index';
import { withOverrides } from '../../../../src/engine/scenario/scenario';
import { predictAccuracy } from '../../../../src/engine/sweep/calibrate/predict';

const world = (base: number) => ({ sim: { world: { schemaVersion: 1 as const, name: `base-${base}`, params: { base } } } });

describe('plan --world: predicted accuracy', () => {
  it('runs each variant\'s stream under the world, per seed, with a one-run interval around the mean', async () => {
    const hard = loadScenario('hard');
    const [strong] = await predictAccuracy(withOverrides(hard, world(4)), { variants: ['single-agent'], seeds: 2, tasks: 24 });
    const [weak] = await predictAccuracy(withOverrides(hard, world(-2)), { variants: ['single-agent'], seeds: 2, tasks: 24 });
    expect(strong!.runs).toHaveLength(2);
    expect(strong!.mean).toBeGreaterThan(weak!.mean + 0.2);
    for (const p of [strong!, weak!]) {
      expect(p.lo).toBeLessThanOrEqual(p.mean);
      expect(p.hi).toBeGreaterThanOrEqual(p.mean);
      expect(p.hi).toBeGreaterThan(p.lo);
    }
  });
});
