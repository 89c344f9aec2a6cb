import { describe, expect, it } from 'vitest';
import { createHashEmbedder, loadBuiltinNicheSpecs } from '../../src/index';
import { leadlearnChooser, zeroShotChooser } from '../../src/team/choosers/leadlearn-chooser';
import { formatRecord, parseStructureChoice } from '../../src/team/leadlearn/choose-prompt';
import { LeadershipBank, leadershipKey, type LeadershipEntry } from '../../src/team/leadlearn/leadership-bank';
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
  it('keeps count, mean and standard error per niche and per team-profile bucket, as of a pool version', () => {
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
    // Team bucket: mean competence 0.4–0.6, any niche.
    const team = bank.stats.forTeam([0.45, 0.5, 0.55], ['voting', 'debate']);
    expect(team.map((s) => [s.structure, s.count])).toEqual([['voting', 1], ['debate', 2]]);
  });

  it('shows the leader the statistics, and the simulated leader follows the evidence in the prompt text', async () => {
    const { SimModel } = await import('../../src/index');
    const { chooseStructurePrompt } = await import('../../src/team/leadlearn/choose-prompt');
    const spec = loadBuiltinNicheSpecs().get('algebra')!;
    const sim = new SimModel({ seed: 1, params: { malformed: 0 } });
    const stat = (structure: string, count: number, mean: number) => ({ structure, count, mean, stderr: count > 1 ? 0.05 : null });
    const ask = async (niche: ReturnType<typeof stat>[], i: number) => {
      const messages = chooseStructurePrompt('persona', spec, 3, [0.5, 0.5, 0.5], [], 2, { niche, team: niche, bucket: '0.4-0.6' });
      const reply = await sim.complete({ messages, stage: 'leadlearn', seedKey: `choose/${i}` });
      return parseStructureChoice(reply.text)!.structure;
    };
    const strong = [stat('voting', 60, 0.55), stat('debate', 60, 0.75), stat('generator-critic', 60, 0.5), stat('decompose', 60, 0.45)];
    const weak = [stat('voting', 0, 0), stat('debate', 60, 0.75), stat('generator-critic', 0, 0), stat('decompose', 0, 0)];
    const picks = async (s: typeof strong) => { const out: string[] = []; for (let i = 0; i < 40; i++) out.push(await ask(s, i)); return out; };
    const withEvidence = await picks(strong);
    const withLittle = await picks(weak);
    expect(withEvidence.filter((x) => x === 'debate').length).toBe(40);
    // Untried structures still get tried: exploration shrinks only as their own evidence grows.
    expect(withLittle.filter((x) => x === 'debate').length).toBeLessThan(20);
    const prompt = chooseStructurePrompt('persona', spec, 3, [0.5, 0.5, 0.5], [], 2, { niche: strong, team: strong, bucket: '0.4-0.6' })[1]!.content;
    expect(prompt).toContain('- this area: voting 60 tasks, mean 0.55 ± 0.05; debate 60 tasks, mean 0.75 ± 0.05');
  });
});
