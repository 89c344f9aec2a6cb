import { describe, expect, it } from 'vitest';
import type { NicheSpec, SimParams } from '../../src/index';
import { algebraSpec } from '../fixtures/algebra-niche';
import { SimModel } from '../../src/sim/sim-model';
import { chooseStructurePrompt } from '../../src/team/leadlearn/choose-prompt';
import type { LeadershipEntry } from '../../src/team/leadlearn/leadership-bank';
import { FIT_RANGES } from '../../src/sim/sim-world-file';

const spec: NicheSpec = algebraSpec;
const persona = 'You lead the team.';
const rec = (structure: string, outcome: number): LeadershipEntry => ({
  id: 'x', taskId: 't', niche: 'algebra', difficulty: 2, teamProfile: [0.5, 0.5, 0.5], structure, outcome, note: 'n', poolVersion: 0, key: new Float32Array(4),
});
// Debate failed once early; the others have a record of steady success.
const RECORDS = [rec('debate', 0), ...Array(8).fill(rec('voting', 0.8)), ...Array(8).fill(rec('decompose', 0.7)), ...Array(8).fill(rec('generator-critic', 0.7))];

async function picks(params: Partial<SimParams>, n = 200): Promise<Map<string, number>> {
  const sim = new SimModel({ seed: 1, params: { malformed: 0, ...params } });
  const out = new Map<string, number>();
  for (let i = 0; i < n; i++) {
    const reply = (await sim.complete({ messages: chooseStructurePrompt(persona, spec, 3, [0.5, 0.5, 0.5], RECORDS, 2), stage: 'leadlearn', seedKey: `c${i}` })).text;
    const s = JSON.parse(reply).structure as string;
    out.set(s, (out.get(s) ?? 0) + 1);
  }
  return out;
}

describe('a leader that re-explores after an early failure (leaderRetry)', () => {
  it('at 0 one early failure locks debate out; at 0.2 the leader gives it another try about one time in five', async () => {
    expect((await picks({})).get('debate') ?? 0).toBe(0);
    const retry = (await picks({ leaderRetry: 0.2 })).get('debate') ?? 0;
    expect(retry).toBeGreaterThan(25);
    expect(retry).toBeLessThan(60);
  });

  it('the leader\'s constants and the structure constants are fittable world parameters', () => {
    for (const p of ['leaderExplore', 'leaderPrior', 'leaderRetry', 'recognize', 'testFeedback', 'conformity', 'stepUptake']) expect(FIT_RANGES[p], p).toBeDefined();
  });
});

describe('the paper form\'s settings', () => {
  it('every one is fittable, bounded, and 0 (off) by default except the constants that were already on', async () => {
    const { PAPER_FORM_FIT_PARAMS } = await import('../../src/sim/sim-world-file');
    const { DEFAULT_SIM_PARAMS } = await import('../../src/sim/sim-params');
    for (const p of PAPER_FORM_FIT_PARAMS) {
      const [lo, hi] = FIT_RANGES[p]!;
      expect(lo, p).toBeLessThan(hi);
      const v = DEFAULT_SIM_PARAMS[p as keyof typeof DEFAULT_SIM_PARAMS] as number;
      expect(v >= lo && v <= hi, p).toBe(true);
    }
    for (const off of ['reflectDifficulty', 'reflectCompetence', 'contrastUptake', 'familyRarity', 'foreignMislead', 'expertise', 'offNichePersona', 'leaderRetry', 'stepUptake']) {
      expect(DEFAULT_SIM_PARAMS[off as keyof typeof DEFAULT_SIM_PARAMS], off).toBe(0);
    }
  });
});
