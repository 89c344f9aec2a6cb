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
