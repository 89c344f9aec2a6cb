import { describe, expect, it } from 'vitest';
import { runScenario } from '../../../src/index';
import { startServeSim } from '../../../src/sim/server/serve-sim';
import { doneTaskIds, outDir, quickstartOver } from './e2e-helpers';

const name = (url: string) => `sim@${url.replace('http://', '')}`;

describe('two serve-sim endpoints of different speeds', () => {
  it('sends more work to the faster one (least outstanding requests)', async () => {
    // 60× apart: at 600 vs 50 (12×) a fast answer took a few ms of modelled time, and on a loaded
    // machine the scheduling noise of the test process itself was of that size and evened the two out.
    const fast = await startServeSim({ port: 0, timeScale: 600 });
    const slow = await startServeSim({ port: 0, timeScale: 10 });
    try {
      const { summary } = await runScenario(quickstartOver({ endpoints: [
        { baseURL: slow.url, model: 'sim', maxConcurrency: 8 },
        { baseURL: fast.url, model: 'sim', maxConcurrency: 8 },
      ] }), { tasks: 24, inFlight: 6, report: false, outDir: outDir() });
      const f = summary.endpoints![name(fast.url)]!;
      const s = summary.endpoints![name(slow.url)]!;
      expect(summary.tasks).toBe(24);
      expect(f.requests + s.requests).toBe(summary.tokens.total.calls + f.aborted + s.aborted);
      expect(f.requests).toBeGreaterThan(s.requests);
    } finally {
      await fast.close();
      await slow.close();
    }
  });

  it('finishes the run on the other endpoint when one is killed mid-run', async () => {
    const a = await startServeSim({ port: 0, timeScale: 200 });
    const b = await startServeSim({ port: 0, timeScale: 200 });
    let killed = false;
    let killing: Promise<void> | undefined;
    try {
      const dir = outDir();
      const { summary } = await runScenario(quickstartOver({ endpoints: [
        { baseURL: a.url, model: 'sim', maxConcurrency: 8 },
        { baseURL: b.url, model: 'sim', maxConcurrency: 8 },
      ], health: { failureThreshold: 2, cooldownMs: 60_000 } }), {
        tasks: 24, inFlight: 4, report: false, outDir: dir,
        onProgress: (p) => { if (!killed && p.done >= 6) { killed = true; killing = a.close(); } },
      });
      await killing;
      expect(killed).toBe(true);
      const ids = doneTaskIds(dir);
      expect(ids).toHaveLength(24);
      expect(new Set(ids).size).toBe(24);
      expect(summary.failures).toBe(0);
      const ua = summary.endpoints![name(a.url)]!;
      const ub = summary.endpoints![name(b.url)]!;
      expect(ua.requests).toBeGreaterThan(0);
      // After the kill everything went to b.
      expect(ub.requests - ub.failures).toBeGreaterThan(summary.tokens.total.calls / 2);
    } finally {
      await a.close();
      await b.close();
    }
  });
});
