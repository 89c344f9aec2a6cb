import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadScenario, runAblation } from '../../../src/index';
import { runQueuedAblation } from '../../../src/engine/sweep/sweep-coordinator';

/** The sweep's settings are `sweep.*` entries of its patch: recorded once, seen by no run, refused where they mean nothing. */
describe('sweep settings in the patch', () => {
  const out = () => path.join(mkdtempSync(path.join(tmpdir(), 'evo-sweep-settings-')), 'ablate');

  it('are recorded in the plan file\'s patch and kept out of every run\'s own patch and scenario', async () => {
    const r = await runAblation(loadScenario('quickstart'), { variants: ['single-agent'], seeds: 1, outDir: out(), patch: { 'stream.tasks': 4, 'sweep.jobs': 1, 'sweep.parallel': 1 } });
    const plan = JSON.parse(readFileSync(path.join(r.outDir, 'ablation-plan.json'), 'utf8')) as { schemaVersion: number; patch: Record<string, unknown> };
    expect(plan.schemaVersion).toBe(3);
    expect(plan.patch).toEqual({ 'stream.tasks': 4, 'sweep.jobs': 1, 'sweep.parallel': 1 });
    const run = JSON.parse(readFileSync(path.join(r.variants['single-agent']!.runs[0]!, 'run.json'), 'utf8')) as { patch: Record<string, unknown>; config: Record<string, unknown> };
    expect(Object.keys(run.patch).filter((p) => p.startsWith('sweep'))).toEqual([]);
    expect(run.config.sweep).toBeUndefined();
  });

  it('are refused, naming the setting, as an option or on a queued sweep', async () => {
    const loaded = loadScenario('quickstart');
    await expect(runAblation(loaded, { jobs: 2 } as never)).rejects.toThrow('runAblation: "jobs" is a scenario setting, not an option: give it in the patch ({ patch: { "sweep.jobs": … } })');
    const target = { url: 'redis://127.0.0.1:1', shown: 'redis://127.0.0.1:1' };
    await expect(runQueuedAblation(loaded, { target, patch: { 'sweep.parallel': 2 }, outDir: out() } as never))
      .rejects.toThrow(/sweep\.parallel: the sweep settings apply to a local ablate, not to one queued on Redis/);
  });
});
