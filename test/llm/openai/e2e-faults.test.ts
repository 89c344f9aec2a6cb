import { describe, expect, it } from 'vitest';
import { runScenario } from '../../../src/index';
import { startServeSim } from '../../../src/sim/server/serve-sim';
import { doneTaskIds, outDir, quickstartOver } from './e2e-helpers';

describe('a run against a faulty server', () => {
  it('accounts for every task exactly once and reports retries and failures per endpoint', async () => {
    const sim = await startServeSim({ port: 0, timeScale: 300, seed: 5, faults: 'error=0.1,429=0.05,hang=0.03,drop=0.02' });
    try {
      const dir = outDir();
      const { summary } = await runScenario(quickstartOver({
        endpoints: [{ baseURL: sim.url, model: 'sim', maxConcurrency: 8 }],
        // Hung requests end at the per-attempt timeout; 2 s leaves an honest request room on a loaded machine.
        timeoutMs: 2000, retries: 8,
      }), { patch: { 'stream.tasks': 24, 'engine.inFlight': 4 }, report: false, outDir: dir });
      const ids = doneTaskIds(dir);
      expect(summary.tasks).toBe(24);
      expect(ids).toHaveLength(24);
      expect(new Set(ids).size).toBe(24);
      const ep = Object.values(summary.endpoints!)[0]!;
      expect(ep.retries).toBeGreaterThan(0);
      expect(ep.failures).toBeGreaterThan(0);
      // Every attempt is a call, a failure (retried: 8 retries outlast these fault rates) or one the
      // caller cancelled (speculative completion); nothing was lost.
      expect(ep.requests).toBe(summary.tokens.total.calls + ep.failures + ep.aborted);
      expect(summary.failures).toBe(0);
    } finally {
      await sim.close();
    }
  });
});
