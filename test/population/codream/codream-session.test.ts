import { describe, expect, it } from 'vitest';
import { NO_EXPERIENCE } from '../../../src/individual/agent-prompts';
import {
  CODREAM_PHASES, runCoDream, type DreamInput, type Insight, type PhaseResult,
} from '../../../src/population/codream/codream';
import type { DreamAttempt, Proposal } from '../../../src/population/codream/codream-prompts';
import type { Completion, CompletionRequest, LanguageModel } from '../../../src/llm/model';
import { agentView, mathTask, teamOf } from '../../fakes/agents';

const team = teamOf(agentView('a'), agentView('b'), agentView('c'));
const input = { task: mathTask(), team } as unknown as DreamInput;
const attempt = (agentId: string, reward: number): DreamAttempt => ({ agentId, persona: 'p', text: `answer of ${agentId}`, reward, feedback: null, experience: NO_EXPERIENCE });
const calls = (prompt: number, failed: string[] = []) => ({ usage: { promptTokens: prompt, completionTokens: 1 }, failed });
const phase = <T>(value: T, prompt: number, failed: string[] = []): PhaseResult<T> => ({ value, calls: calls(prompt, failed) });

/** The session's phases, every one replaced by a double that records its input and returns what it is given. */
function doubles(p: { proposals: Proposal[]; kept?: Proposal[]; insights?: Insight[]; failed?: string[] }) {
  const seen = { attempts: [] as unknown[], reflect: [] as unknown[], contrast: [] as unknown[], imagine: [] as unknown[], debate: [] as unknown[], crystallize: [] as unknown[] };
  const doubled = {
    attempts: async (i: unknown) => { seen.attempts.push(i); return [attempt('a', 1), attempt('b', 0), attempt('c', 0)]; },
    reflect: async (i: unknown) => { seen.reflect.push(i); return phase({ a: 'da', b: 'db', c: 'dc' }, 10); },
    contrast: async (i: unknown) => { seen.contrast.push(i); return phase(['delta 1', 'delta 2'], 20, p.failed ?? []); },
    imagine: async (i: unknown) => { seen.imagine.push(i); return phase(p.proposals, 30); },
    debate: async (i: unknown) => { seen.debate.push(i); return phase(p.kept ?? [], 40); },
    crystallize: async (i: unknown) => { seen.crystallize.push(i); return phase(p.insights ?? [], 50); },
  };
  return { phases: doubled, seen };
}

const proposal = (strategy: string): Proposal => ({ strategy, niches: ['algebra'] });
const insight: Insight = { id: 'cd:algebra-0001:0', text: 'substitute back', level: 'subdomain', niche: 'algebra', authors: ['a', 'b', 'c'] };

describe('CoDream session (phase doubles)', () => {
  it('runs the phases in order, each on the previous phase\'s output, and sums usage and failed calls', async () => {
    const kept = [proposal('check by substitution')];
    const { phases, seen } = doubles({ proposals: [proposal('check by substitution'), proposal('guess')], kept, insights: [insight], failed: ['b contrast-0: 503'] });
    const out = await runCoDream(input, 'failure', phases);
    expect(seen.attempts).toEqual([input]);
    expect(seen.contrast).toEqual([{ input, attempts: [attempt('a', 1), attempt('b', 0), attempt('c', 0)], diagnoses: { a: 'da', b: 'db', c: 'dc' } }]);
    expect(seen.imagine).toEqual([{ input, deltas: ['delta 1', 'delta 2'] }]);
    expect((seen.debate[0] as { proposals: Proposal[] }).proposals).toHaveLength(2);
    expect(seen.crystallize).toEqual([{ input, kept }]);
    expect(out).toEqual({
      trigger: 'failure', insights: [insight], proposals: 2, kept: 1,
      usage: { promptTokens: 10 + 20 + 30 + 40 + 50, completionTokens: 5 }, failedCalls: ['b contrast-0: 503'],
    });
  });

  it('leaves out the optional phases `phases` does not name: no reflect (contrast gets no diagnoses), no debate (every proposal kept)', async () => {
    const proposals = [proposal('check by substitution'), proposal('guess')];
    const { phases, seen } = doubles({ proposals, insights: [insight] });
    const out = await runCoDream({ ...input, phases: [] }, 'failure', phases);
    expect(seen.reflect).toEqual([]);
    expect(seen.debate).toEqual([]);
    expect((seen.contrast[0] as { diagnoses: unknown }).diagnoses).toEqual({});
    expect(seen.crystallize).toEqual([{ input: { ...input, phases: [] }, kept: proposals }]);
    expect(out).toMatchObject({ proposals: 2, kept: 2, insights: [insight], usage: { promptTokens: 20 + 30 + 50 } });
    const onlyDebate = doubles({ proposals, kept: [proposals[0]!], insights: [insight] });
    await runCoDream({ ...input, phases: ['debate'] }, 'failure', onlyDebate.phases);
    expect(onlyDebate.seen.reflect).toEqual([]);
    expect(onlyDebate.seen.debate).toHaveLength(1);
  });

  it('skips debate and crystallize when imagine proposes nothing', async () => {
    const { phases, seen } = doubles({ proposals: [] });
    const out = await runCoDream(input, 'disagreement', phases);
    expect(seen.debate).toEqual([]);
    expect(seen.crystallize).toEqual([]);
    expect(out).toMatchObject({ trigger: 'disagreement', insights: [], proposals: 0, kept: 0, usage: { promptTokens: 60 } });
  });

  it('skips crystallize when the debate keeps nothing', async () => {
    const { phases, seen } = doubles({ proposals: [proposal('guess')], kept: [] });
    const out = await runCoDream(input, 'both', phases);
    expect(seen.debate).toHaveLength(1);
    expect(seen.crystallize).toEqual([]);
    expect(out).toMatchObject({ insights: [], proposals: 1, kept: 0 });
  });

  it('rejects when a phase fails (a grader error in the attempts phase), so the task run records it', async () => {
    const phases = { ...CODREAM_PHASES, attempts: async (): Promise<DreamAttempt[]> => { throw new Error('sandbox gone'); } };
    await expect(runCoDream(input, 'failure', phases)).rejects.toThrow('sandbox gone');
  });
});

/** A model that answers each CoDream phase from a script, by the tag in the request's seed key, and records the prompts. */
class ScriptedModel implements LanguageModel {
  readonly name = 'scripted';
  readonly prompts: { tag: string; agentId: string; text: string }[] = [];
  constructor(private readonly script: (tag: string, agentId: string) => string) {}
  async complete(req: CompletionRequest): Promise<Completion> {
    const tag = req.seedKey!.split('/codream/')[1]!;
    this.prompts.push({ tag, agentId: req.agentId!, text: req.messages.map((m) => m.content).join('\n') });
    const text = this.script(tag, req.agentId!);
    if (text === 'FAIL') throw new Error('503 after 3 attempts');
    return { text, usage: { promptTokens: 2, completionTokens: 1 }, timing: {} as Completion['timing'], model: 'scripted' };
  }
  async embed(texts: readonly string[]): Promise<Float32Array[]> { return texts.map(() => new Float32Array(4)); }
}

describe('CoDream phases on a scripted model (only the attempts phase doubled)', () => {
  const attempts = { ...CODREAM_PHASES, attempts: async () => [attempt('a', 1), attempt('b', 0), attempt('c', 0)] };
  const votes: Record<string, string> = { a: '{"keep": [1, 2]}', b: '{"keep": [1]}', c: 'no opinion' };
  const script = (tag: string, agentId: string) => {
    if (tag === 'reflect') return `{"diagnosis": "diagnosis of ${agentId}"}`;
    if (tag.startsWith('contrast')) return `{"delta": "delta from ${agentId}"}`;
    if (tag === 'imagine') return '{"proposals": [{"strategy": "substitute back", "niches": ["algebra"]}, {"strategy": "guess and check"}, {"strategy": "draw it"}]}';
    if (tag === 'debate') return votes[agentId]!;
    return '{"insights": [{"text": "substitute the answer back", "level": "cross-domain", "niche": "algebra"}]}';
  };

  it('contrasts each failing attempt with the successful one, keeps proposals with a strict majority of votes cast, crystallizes only those', async () => {
    const model = new ScriptedModel(script);
    const out = await runCoDream({ ...input, model, spec: { title: 'Algebra', keywords: [] } as never, niches: new Set(['algebra']), experience: () => NO_EXPERIENCE }, 'failure', attempts);
    const contrasts = model.prompts.filter((p) => p.tag.startsWith('contrast')).map((p) => p.agentId).sort();
    expect(contrasts).toEqual(['b', 'c']);
    // a and b voted (c abstained): "substitute back" has 2 of 2, "guess and check" 1 of 2 (no strict majority).
    expect(out).toMatchObject({ proposals: 3, kept: 1, failedCalls: [] });
    const crystallize = model.prompts.find((p) => p.tag === 'crystallize')!;
    expect(crystallize.text).toContain('substitute back');
    expect(crystallize.text).not.toContain('guess and check');
    expect(out.insights).toEqual([{ id: 'cd:algebra-0001:0', text: 'substitute the answer back', level: 'cross-domain', niche: null, authors: ['a', 'b', 'c'] }]);
    expect(out.usage).toEqual({ promptTokens: 2 * model.prompts.length, completionTokens: model.prompts.length });
  });

  it('lists a failed call instead of throwing', async () => {
    const model = new ScriptedModel((tag, agentId) => (tag === 'debate' && agentId === 'b' ? 'FAIL' : script(tag, agentId)));
    const out = await runCoDream({ ...input, model, spec: { title: 'Algebra', keywords: [] } as never, niches: new Set(['algebra']), experience: () => NO_EXPERIENCE }, 'failure', attempts);
    expect(out.failedCalls).toEqual(['b debate: 503 after 3 attempts']);
  });
});
