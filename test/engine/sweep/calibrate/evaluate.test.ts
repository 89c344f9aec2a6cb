import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadScenario } from '../../../../src/index';
import { RUN_CHILD_ENTRY } from '../../../../src/cli/composition';
import { Evaluator } from '../../../../src/engine/sweep/calibrate/evaluate';
import type { Target } from '../../../../src/engine/sweep/calibrate/targets';

describe('calibration evaluations', () => {
  it('give the same figures, to the bit, whether their runs start in the targets\' order or the longest first', async () => {
    const loaded = loadScenario('hard');
    const niches = loaded.scenario.stream.niches.map((n) => n.id);
    // Three variants of unequal cost, so the second evaluation's start order (longest first, by the first's times) differs.
    const targets = ['single-agent', 'shared-memory', 'per-agent-memory'].flatMap((variant, v) => niches.map((niche, i) => ({
      index: v * niches.length + i, variant, niche, niches: [niche], accuracy: 0.3, se: 0.1, source: 'test', loaded,
    }))) as unknown as Target[];
    const ev = new Evaluator({ targets, seeds: [1, 2, 3], patch: { 'stream.tasks': 24 }, workDir: mkdtempSync(path.join(tmpdir(), 'evo-evaluate-')), jobs: 2, childEntry: RUN_CHILD_ENTRY });
    try {
      const patch = { 'sim.world': { schemaVersion: 1, name: 'w', params: { base: 0.8, coverage: 2 } } };
      const first = await ev.evaluate(patch, 'a');
      const second = await ev.evaluate(patch, 'b');
      expect(JSON.stringify(second)).toBe(JSON.stringify(first));
      expect(first.some((s) => s.value > 0)).toBe(true);
    } finally {
      await ev.close();
    }
  }, 60_000);
});
