import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadScenario, resumeRun, runScenario, type Progress } from '../../src/index';
import { withOverrides } from '../../src/engine/scenario/scenario';
import { RunStore } from '../../src/store/run-store';
import { startServeSim, type ServeSim } from '../../src/sim/server/serve-sim';

const out = () => mkdtempSync(path.join(tmpdir(), 'evo-outage-'));

function scenario(sim: ServeSim, outageTimeoutMs: number) {
  return withOverrides(loadScenario(path.resolve('scenarios/quickstart.json')), {
    stream: { tasks: 10, niches: [{ id: 'people-qa' }, { id: 'timeline-qa' }] },
    model: {
      backend: 'openai', endpoints: [{ baseURL: sim.url, model: 'sim', maxConcurrency: 4 }], simSideChannel: true,
      retries: 2, backoff: { baseMs: 20, maxMs: 100 }, health: { failureThreshold: 2, cooldownMs: 100 }, outageTimeoutMs,
    },
  } as never);
}

/** Take serve-sim down on its `n`-th chat request (every connection cut), as a crashed server. */
function downAt(sim: ServeSim, n: number): Promise<void> {
  let chats = 0;
  return new Promise((resolve) => {
    sim.server.on('request', (req) => { if (req.url?.endsWith('/chat/completions') && ++chats === n) void sim.close().then(resolve); });
  });
}

describe('an endpoint outage', () => {
  it('pauses the run ("waiting for endpoints") and continues when the server is back, failing no task', async () => {
    const sim = await startServeSim({ port: 0, timeScale: 300 });
    let back: ServeSim | undefined;
    const seen: Progress[] = [];
    const down = downAt(sim, 30).then(async () => {
      await new Promise((r) => setTimeout(r, 800));
      back = await startServeSim({ port: sim.port, timeScale: 300 });
    });
    try {
      const { summary, interrupted } = await runScenario(scenario(sim, 60_000), { report: false, outDir: out(), onProgress: (p) => seen.push(p) });
      await down;
      expect(interrupted).toBeUndefined();
      expect(summary.tasks).toBe(10);
      expect(summary.failures).toBe(0);
      expect(seen.some((p) => p.waiting === true)).toBe(true);
    } finally {
      await sim.close();
      await back?.close();
    }
  }, 60_000);

  it('stops the run as interrupted after outageTimeoutMs; resume finishes it once the server is back', async () => {
    const sim = await startServeSim({ port: 0, timeScale: 300 });
    void downAt(sim, 30);
    const dir = out();
    let back: ServeSim | undefined;
    try {
      const r = await runScenario(scenario(sim, 500), { report: false, outDir: dir });
      expect(r.interrupted).toBe(true);
      const store = await RunStore.open(dir);
      expect(store.data.status).toBe('interrupted');
      expect(store.data.interruptReason).toBe('endpoint outage');
      back = await startServeSim({ port: sim.port, timeScale: 300 });
      const done = await resumeRun(dir, { report: false });
      expect(done.summary.tasks).toBe(10);
      expect(done.summary.failures).toBe(0);
    } finally {
      await sim.close();
      await back?.close();
    }
  }, 60_000);
});
