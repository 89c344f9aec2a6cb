import { describe, expect, it } from 'vitest';
import { BUILTIN_CHOOSERS, type ChooserDescriptor } from '../../src/index';
import { choosableStructures } from '../../src/team/structures';
import { CHOOSER_KINDS } from '../../src/team/choosers';
import { createHashEmbedder } from '../../src/llm/hash-embedder';
import { loadBuiltinNicheSpecs } from '../../src/tasks/niche-registry';
import { knobViolation } from '../../src/core/knob';
import { LeadershipBank, leadershipKey } from '../../src/team/leadlearn/leadership-bank';
import { agentView, mathTask, teamOf, testRng } from '../fakes/agents';
import { RecordingModel, type FakeAnswer } from '../fakes/recording-model';
import { scenarioDefaults } from '../fakes/scenario-defaults';

/**
 * Every structure chooser keeps its contract (team/choosers/chooser.ts): it picks one of the
 * structures it is offered (or the fallback), never throws for an unusable reply, and picks the same
 * for the same seed and replies; its knobs name real settings with their defaults in bounds.
 * Exceptions, with why:
 */
const EXCEPTIONS: Readonly<Record<string, { readonly asksModel: boolean; readonly why: string }>> = {
  fixed: { asksModel: false, why: 'always the preset\'s structure, whatever is offered' },
  random: { asksModel: false, why: 'draws from the offered structures with the seeded rng' },
  leadlearn: { asksModel: true, why: 'the leader\'s model picks, from the bank\'s evidence' },
  'zero-shot': { asksModel: true, why: 'the leader\'s model picks, with no evidence' },
  bandit: { asksModel: false, why: 'Thompson draws over the bank\'s per-niche outcomes, from the seeded rng' },
};

const embedder = createHashEmbedder();
const spec = loadBuiltinNicheSpecs().get('algebra')!;
const team = teamOf(agentView('a', { algebra: 0.8 }), agentView('b', { algebra: 0.6 }), agentView('c'));
const profile = [0.8, 0.6, 0.5];
const offered = choosableStructures().filter((s) => s.name === 'debate' || s.name === 'decompose');
const ctx = (answer: FakeAnswer, seed = 1, structures = choosableStructures()) => ({
  task: mathTask(), spec, team, model: new RecordingModel(answer), rng: testRng(seed), bank: new LeadershipBank(embedder.dim), poolVersion: 5,
  key: leadershipKey(embedder.embedSync('algebra'), profile), profile, k: 8, debateRounds: 2, fallback: 'voting', structures,
});

// Every built-in chooser declares its exceptions here; one registered later gets the contract below without them (no edit here).
it.each(BUILTIN_CHOOSERS.map((d) => d.name))('chooser %s declares its exceptions here', (name) => {
  expect(EXCEPTIONS[name], `declare ${name}'s exceptions in this suite`).toBeDefined();
});

describe.each(CHOOSER_KINDS.list().map((d) => [d.name, d] as const))('chooser contract: %s', (name, d: ChooserDescriptor) => {
  const declared = EXCEPTIONS[name];

  it('picks an offered structure (or its fallback), and only the leader\'s model is asked', async () => {
    const c = ctx('{"structure": "debate", "why": "members disagree often here"}', 1, offered);
    const choice = await d.choose(c);
    expect([...offered.map((s) => s.name), c.fallback]).toContain(choice.structure);
    if (declared) expect(c.model.calls.length > 0).toBe(declared.asksModel);
    for (const call of c.model.calls) expect(call.agentId).toBe('a');
    if (name !== 'fixed') expect(offered.map((s) => s.name)).toContain(choice.structure);
  });

  it('never throws on an unusable reply or a failed call, and says where its choice came from', async () => {
    for (const answer of ['{{{', '', 'I cannot say', (() => { throw new Error('503'); }) as FakeAnswer]) {
      const choice = await d.choose(ctx(answer));
      expect(['model', 'fallback', 'fixed', 'random', 'bandit']).toContain(choice.source);
      if (declared?.asksModel) expect(choice.source).toBe('fallback');
    }
  });

  it('chooses the same for the same seed and replies', async () => {
    const pick = async (seed: number) => (await d.choose(ctx('{"structure": "decompose"}', seed))).structure;
    expect(await pick(4)).toBe(await pick(4));
  });

  it('declares knobs that name real settings, with their defaults in bounds', () => {
    for (const k of d.knobs ?? []) {
      const v = k.path.split('.').reduce<unknown>((o, p) => (o as Record<string, unknown> | undefined)?.[p], scenarioDefaults());
      expect(v, k.path).toBeDefined();
      expect(knobViolation(k, v), k.path).toBeNull();
    }
  });
});
