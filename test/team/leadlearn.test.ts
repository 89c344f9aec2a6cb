import { describe, expect, it } from 'vitest';
import { createHashEmbedder } from '../../src/llm/hash-embedder';
import { loadBuiltinNicheSpecs } from '../../src/tasks/niche-registry';
import { leadlearnChooser, zeroShotChooser } from '../../src/team/choosers/leadlearn-chooser';
import { formatRecord, parseStructureChoice } from '../../src/team/leadlearn/choose-prompt';
import { LeadershipBank, leadershipKey, type LeadershipEntry } from '../../src/team/leadlearn/leadership-bank';
import { wilsonInterval } from '../../src/team/leadlearn/leadership-stats';
import { agentView, mathTask, teamOf, testRng } from '../fakes/agents';
import { RecordingModel } from '../fakes/recording-model';

const embedder = createHashEmbedder();
const key = (niche: string, profile: number[]) => leadershipKey(embedder.embedSync(niche), profile);
let n = 0;
const entry = (niche: string, profile: number[], structure: string, outcome: number, committedAt = 1): LeadershipEntry => ({
  id: `e${n++}`, taskId: `t${n}`, niche, difficulty: 2, teamProfile: profile, structure, outcome, note: 'note', poolVersion: 0,
  key: key(niche, profile), committedAt,
});

describe('leadership bank', () => {
  it('retrieves entries of the same niche first, nearest team profile first', () => {
    const bank = new LeadershipBank(embedder.dim);
    bank.add(entry('algebra', [0.9, 0.8, 0.5], 'debate', 1));
    bank.add(entry('people-qa', [0.9, 0.8, 0.5], 'voting', 1));
    bank.add(entry('algebra', [0.2, 0.2, 0.5], 'decompose', 0));
    const got = bank.query(key('algebra', [0.85, 0.8, 0.5]), 2);
    expect(got.map((e) => e.structure)).toEqual(['debate', 'decompose']);
  });

  it('answers as of a pool version: entries committed later are invisible', () => {
    const bank = new LeadershipBank(embedder.dim);
    bank.add(entry('algebra', [0.5, 0.5, 0.5], 'debate', 1, 1));
    bank.add(entry('algebra', [0.5, 0.5, 0.5], 'voting', 1, 5));
    expect(bank.query(key('algebra', [0.5, 0.5, 0.5]), 5, 3).map((e) => e.structure)).toEqual(['debate']);
    expect(bank.query(key('algebra', [0.5, 0.5, 0.5]), 5).length).toBe(2);
  });
});

describe('structure choice parsing', () => {
  it('accepts JSON, fenced JSON, spelling variants, and one bare mention', () => {
    expect(parseStructureChoice('{"structure": "debate", "why": "x"}')?.structure).toBe('debate');
    expect(parseStructureChoice('<think>hmm</think>```json\n{"structure": "Generator Critic"}\n```')?.structure).toBe('generator-critic');
    expect(parseStructureChoice('I would use decompose here.')?.structure).toBe('decompose');
  });
  it('rejects unknown structures and ambiguous prose', () => {
    expect(parseStructureChoice('{"structure": "brainstorm"}')).toBeNull();
    expect(parseStructureChoice('voting or debate, hard to say')).toBeNull();
    expect(parseStructureChoice('')).toBeNull();
  });
});

describe('LeadLearn chooser', () => {
  const spec = loadBuiltinNicheSpecs().get('algebra')!;
  const team = teamOf(agentView('a'), agentView('b'), agentView('c'));
  const ctx = (model: RecordingModel, bank: LeadershipBank) => ({
    task: mathTask(), spec, team, model, rng: testRng(), bank, poolVersion: 10, key: key('algebra', [0.5, 0.5, 0.5]),
    profile: [0.5, 0.5, 0.5], k: 4, debateRounds: 2, fallback: 'voting',
  });

  it('shows the leader the retrieved records and follows its choice', async () => {
    const bank = new LeadershipBank(embedder.dim);
    const e = entry('algebra', [0.5, 0.5, 0.5], 'debate', 1);
    bank.add(e);
    const model = new RecordingModel('{"structure": "generator-critic", "why": "try it"}');
    const choice = await leadlearnChooser(ctx(model, bank));
    expect(choice).toMatchObject({ structure: 'generator-critic', source: 'model', why: 'try it' });
    expect(choice.retrieved.map((r) => r.id)).toEqual([e.id]);
    expect(model.prompts()[0]).toContain(formatRecord(e));
    expect(model.calls[0]!.stage).toBe('leadlearn');
  });

  it('falls back to the preset structure on an unusable reply and says so', async () => {
    const choice = await leadlearnChooser(ctx(new RecordingModel('no idea'), new LeadershipBank(embedder.dim)));
    expect(choice).toMatchObject({ structure: 'voting', source: 'fallback' });
  });

  it('the zero-shot chooser shows no records even when the bank has some', async () => {
    const bank = new LeadershipBank(embedder.dim);
    bank.add(entry('algebra', [0.5, 0.5, 0.5], 'debate', 1));
    const model = new RecordingModel('{"structure": "voting"}');
    const choice = await zeroShotChooser(ctx(model, bank));
    expect(choice.retrieved).toEqual([]);
    expect(model.prompts()[0]).toContain('(none yet)');
  });
});

describe('leadership statistics', () => {
  it('keeps count, mean and standard error per niche, as of a pool version', () => {
    const bank = new LeadershipBank(embedder.dim);
    bank.add(entry('algebra', [0.5, 0.5, 0.5], 'debate', 1, 1));
    bank.add(entry('algebra', [0.5, 0.5, 0.5], 'debate', 0, 2));
    bank.add(entry('algebra', [0.9, 0.9, 0.9], 'debate', 1, 3));
    bank.add(entry('people-qa', [0.5, 0.5, 0.4], 'voting', 1, 4));
    const [voting, debate] = bank.stats.forNiche('algebra', ['voting', 'debate']);
    expect(voting).toEqual({ structure: 'voting', count: 0, mean: 0, stderr: null });
    expect(debate!.count).toBe(3);
    expect(debate!.mean).toBeCloseTo(2 / 3, 6);
    expect(debate!.stderr).toBeCloseTo(Math.sqrt(1 / 3 / 3), 6); // sample variance 1/3
    // As of version 1 only the first record counts (in-flight tasks read their start version).
    expect(bank.stats.forNiche('algebra', ['debate'], 1)[0]).toMatchObject({ count: 1, mean: 1, stderr: null });
  });

  it('the prior counts other niches, one mean each, only where a structure led at least three tasks', () => {
    const bank = new LeadershipBank(embedder.dim);
    const add = (niche: string, structure: string, outcomes: number[], at = 1) => { for (const o of outcomes) bank.add(entry(niche, [0.5, 0.5, 0.5], structure, o, at)); };
    add('algebra', 'debate', [1, 1, 1, 1, 1, 1, 1, 1, 1, 0]); // 0.9 over ten records: one area
    add('people-qa', 'debate', [0, 1, 0]); // 1/3 over three: one area, same weight
    add('list-functions', 'debate', [0, 0]); // two records: not an area yet
    add('arithmetic', 'debate', [0, 0, 0, 0]); // the niche asked about never counts in its own prior
    add('list-functions', 'voting', [1, 1, 1], 9); // committed later than the reader's version
    const [debate, voting] = bank.stats.priorFor('arithmetic', ['debate', 'voting'], 5);
    expect(debate!.areas).toBe(2);
    expect(debate!.mean).toBeCloseTo((0.9 + 1 / 3) / 2, 6);
    expect([debate!.low, debate!.high].map((x) => x.toFixed(2))).toEqual(['0.33', '0.90']);
    expect(voting).toEqual({ structure: 'voting', areas: 0, mean: 0, low: 0, high: 0 });
    expect(bank.stats.priorFor('arithmetic', ['voting'])[0]!.areas).toBe(1);
  });

  it('the 95% interval stays in [0, 1] and narrows with records', () => {
    expect(wilsonInterval(0, 0)).toBeNull();
    const one = wilsonInterval(1, 0)!;
    expect(one.low).toBe(0);
    expect(one.high).toBeCloseTo(0.79, 2);
    const many = wilsonInterval(100, 0.7)!;
    expect(many.low).toBeGreaterThan(0.6);
    expect(many.high).toBeLessThan(0.79);
  });

  it('shows this area first with its interval, then the prior labelled as one; the simulated leader follows the evidence in the prompt text', async () => {
    const { SimModel } = await import('../../src/sim/sim-model');
    const { chooseStructurePrompt } = await import('../../src/team/leadlearn/choose-prompt');
    const spec = loadBuiltinNicheSpecs().get('algebra')!;
    const sim = new SimModel({ seed: 1, params: { malformed: 0 } });
    const stat = (structure: string, count: number, mean: number) => ({ structure, count, mean, stderr: count > 1 ? 0.05 : null });
    const prior = (structure: string, areas: number, mean: number) => ({ structure, areas, mean, low: mean, high: mean });
    const none = ['voting', 'debate', 'generator-critic', 'decompose'].map((s) => prior(s, 0, 0));
    const ask = async (niche: ReturnType<typeof stat>[], priors: ReturnType<typeof prior>[], i: number) => {
      const messages = chooseStructurePrompt('persona', spec, 3, [0.5, 0.5, 0.5], [], 2, { niche, prior: priors });
      const reply = await sim.complete({ messages, stage: 'leadlearn', seedKey: `choose/${i}` });
      return parseStructureChoice(reply.text)!.structure;
    };
    const strong = [stat('voting', 60, 0.55), stat('debate', 60, 0.75), stat('generator-critic', 60, 0.5), stat('decompose', 60, 0.45)];
    const weak = [stat('voting', 0, 0), stat('debate', 60, 0.75), stat('generator-critic', 0, 0), stat('decompose', 0, 0)];
    const empty = ['voting', 'debate', 'generator-critic', 'decompose'].map((s) => stat(s, 0, 0));
    const picks = async (s: typeof strong, p: typeof none) => { const out: string[] = []; for (let i = 0; i < 40; i++) out.push(await ask(s, p, i)); return out; };
    // Of the four with evidence only the best is picked (a structure added later, untried, may be explored).
    const evidenced = (xs: string[]) => xs.filter((x) => ['voting', 'debate', 'generator-critic', 'decompose'].includes(x));
    const best = await picks(strong, none);
    expect(new Set(evidenced(best))).toEqual(new Set(['debate']));
    // Untried structures still get tried: exploration shrinks only as their own evidence grows.
    expect((await picks(weak, none)).filter((x) => x === 'debate').length).toBeLessThan(20);
    // With no evidence on this area, the prior line decides.
    const fromPrior = await picks(empty, [prior('voting', 5, 0.2), prior('debate', 5, 0.2), prior('generator-critic', 5, 0.9), prior('decompose', 5, 0.2)]);
    expect(new Set(evidenced(fromPrior))).toEqual(new Set(['generator-critic']));
    const prompt = chooseStructurePrompt('persona', spec, 3, [0.5, 0.5, 0.5], [], 2, { niche: strong, prior: [prior('voting', 2, 0.4), ...none.slice(1)] })[1]!.content;
    expect(prompt).toContain('- this area: voting 60 tasks, mean 0.55, 95% CI 0.42-0.67; debate 60 tasks, mean 0.75, 95% CI 0.63-0.84');
    expect(prompt).toContain('- prior, other areas: voting 2 areas, mean 0.40, range 0.40-0.40; debate 0 areas');
    expect(prompt.indexOf('- this area:')).toBeLessThan(prompt.indexOf('A prior, not evidence about this area'));
    expect(prompt.indexOf('A prior, not evidence about this area')).toBeLessThan(prompt.indexOf('- prior, other areas:'));
  });
});
