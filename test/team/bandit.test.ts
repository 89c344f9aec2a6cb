import { describe, expect, it } from 'vitest';
import { createHashEmbedder } from '../../src/llm/hash-embedder';
import { loadBuiltinNicheSpecs } from '../../src/tasks/niche-registry';
import { banditChooser, sampleBeta } from '../../src/team/choosers/bandit-chooser';
import { CHOOSER_REGISTRY } from '../../src/team/choosers';
import { choosableStructures } from '../../src/team/structures';
import { keepsRecords } from '../../src/team/choosers/chooser';
import { LeadershipBank, leadershipKey } from '../../src/team/leadlearn/leadership-bank';
import { agentView, mathTask, teamOf, testRng } from '../fakes/agents';
import { RecordingModel } from '../fakes/recording-model';

const embedder = createHashEmbedder();
const spec = loadBuiltinNicheSpecs().get('algebra')!;
const team = teamOf(agentView('a'), agentView('b'), agentView('c'));
let n = 0;

/** A bank holding `outcomes` for each (niche, structure). */
function bankOf(records: Array<[niche: string, structure: string, outcomes: number[]]>): LeadershipBank {
  const bank = new LeadershipBank(embedder.dim);
  for (const [niche, structure, outcomes] of records) {
    for (const outcome of outcomes) {
      bank.add({
        id: `e${n++}`, taskId: `t${n}`, niche, difficulty: 2, teamProfile: [0.5, 0.5, 0.5], structure, outcome, note: '',
        poolVersion: 0, key: leadershipKey(embedder.embedSync(niche), [0.5, 0.5, 0.5]), committedAt: 1,
      });
    }
  }
  return bank;
}

const ctx = (bank: LeadershipBank, seed: number, model = new RecordingModel('unused')) => ({
  task: mathTask(), spec, team, model, rng: testRng(seed), bank, poolVersion: 10,
  key: leadershipKey(embedder.embedSync('algebra'), [0.5, 0.5, 0.5]), profile: [0.5, 0.5, 0.5], k: 4, debateRounds: 2, fallback: 'voting',
});

const tally = async (bank: LeadershipBank, draws = 200) => {
  const out: Record<string, number> = {};
  for (let i = 0; i < draws; i++) {
    const c = await banditChooser(ctx(bank, i));
    out[c.structure] = (out[c.structure] ?? 0) + 1;
  }
  return out;
};

const many = (k: number, ones: number) => Array.from({ length: k }, (_, i) => (i < ones ? 1 : 0));

describe('bandit chooser (Thompson sampling over the bank)', () => {
  it('Beta draws have the Beta mean', () => {
    const rng = testRng(7);
    const xs = Array.from({ length: 4000 }, () => sampleBeta(rng, 3, 7));
    expect(xs.reduce((a, b) => a + b, 0) / xs.length).toBeCloseTo(0.3, 1);
    expect(Math.min(...xs)).toBeGreaterThan(0);
    expect(Math.max(...xs)).toBeLessThan(1);
    const small = Array.from({ length: 4000 }, () => sampleBeta(rng, 0.5, 0.5));
    expect(small.reduce((a, b) => a + b, 0) / small.length).toBeCloseTo(0.5, 1);
  });

  it('is a function of the task rng: the same seed gives the same choice, and it asks no model', async () => {
    const bank = bankOf([['algebra', 'debate', many(6, 3)], ['algebra', 'voting', many(6, 3)]]);
    const model = new RecordingModel('{"structure": "decompose"}');
    const a = await banditChooser(ctx(bank, 3, model));
    const b = await banditChooser(ctx(bank, 3, model));
    expect(a).toEqual(b);
    expect(a.source).toBe('bandit');
    expect(model.calls).toHaveLength(0);
  });

  it('tries every structure on an empty bank', async () => {
    const got = await tally(bankOf([]));
    // Every choosable structure, whatever the registry holds (a structure added later included).
    expect(Object.keys(got).sort()).toEqual(choosableStructures().map((d) => d.name).sort());
  });

  it('concentrates on the structure with the most reward on this niche as records grow', async () => {
    const bank = bankOf([
      ['algebra', 'debate', many(60, 48)], ['algebra', 'voting', many(60, 24)],
      ['algebra', 'generator-critic', many(60, 27)], ['algebra', 'decompose', many(60, 25)],
    ]);
    // Of the structures with records, only the best is drawn; one without records (added later) may still be tried.
    const got = await tally(bank);
    expect(Object.keys(got).filter((s) => ['voting', 'generator-critic', 'decompose'].includes(s))).toEqual([]);
    expect(got.debate).toBe(Math.max(...Object.values(got)));
  });

  it('keeps trying a structure that failed its first tasks (early bad luck never locks it out)', async () => {
    const bank = bankOf([['algebra', 'debate', [0, 0]], ['algebra', 'voting', many(10, 5)], ['algebra', 'generator-critic', many(10, 5)], ['algebra', 'decompose', many(10, 5)]]);
    expect((await tally(bank)).debate ?? 0).toBeGreaterThan(5);
  });

  it('reads only this niche: another niche\'s records do not move it', async () => {
    const other = bankOf([['people-qa', 'decompose', many(100, 100)], ['people-qa', 'voting', many(100, 0)]]);
    const empty = bankOf([]);
    expect(await tally(other)).toEqual(await tally(empty));
  });

  it('is registered, keeps bank records and writes no notes', () => {
    const d = CHOOSER_REGISTRY.get('bandit')!;
    expect(d.writesNotes).toBe(false);
    expect(keepsRecords(d)).toBe(true);
    expect(keepsRecords(CHOOSER_REGISTRY.get('leadlearn'))).toBe(true);
    expect(keepsRecords(CHOOSER_REGISTRY.get('fixed'))).toBe(false);
  });
});
