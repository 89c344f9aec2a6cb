/**
 * No silent zero against serve-sim: a run that reaches a serve-sim (its `/v1/models` says so)
 * without the side channel says in one line what will happen and how to change it; with the side
 * channel, or against any other server, it says nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runScenario } from '../../../src/index';
import { startServeSim, type ServeSim } from '../../../src/sim/server/serve-sim';
import { SERVE_SIM_HELP } from '../../../src/cli/commands/serve-sim';
import { outDir, quickstartOver } from './e2e-helpers';

let sim: ServeSim;
beforeAll(async () => { sim = await startServeSim({ port: 0, timeScale: 3000 }); });
afterAll(async () => { await sim.close(); });

describe('a run against serve-sim', () => {
  it('says in one line, as it starts, that without the side channel accuracy will be near 0, and how to turn it on', async () => {
    const notices: string[] = [];
    const { summary } = await runScenario(quickstartOver({ endpoints: [{ baseURL: sim.url, model: 'sim', maxConcurrency: 4 }], simSideChannel: false }), { tasks: 4, report: false, outDir: outDir(), onNotice: (l) => notices.push(l) });
    expect(summary.tasks).toBe(4);
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatch(/^note: 127\.0\.0\.1:\d+\/v1 is EvoChamber's serve-sim, and this run does not send it the side channel .* accuracy near 0\. .* add --sim-side-channel \(model\.simSideChannel: true; loopback servers only\)$/);
  });

  it('says nothing when the run sends the side channel', async () => {
    const notices: string[] = [];
    await runScenario(quickstartOver({ endpoints: [{ baseURL: sim.url, model: 'sim', maxConcurrency: 4 }] }), { tasks: 2, report: false, outDir: outDir(), onNotice: (l) => notices.push(l) });
    expect(notices).toEqual([]);
  });

  it('serve-sim --help names the side channel', () => {
    expect(SERVE_SIM_HELP).toMatch(/--sim-side-channel/);
  });
});
