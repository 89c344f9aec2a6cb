import { describe, expect, it } from 'vitest';
import { type AgentView, type AppliedSinceEntry, type SimParams, type StalenessContext } from '../../../src/index';
import { getStalenessPolicy } from '../../../src/population/staleness';
import { SimModel } from '../../../src/sim/sim-model';
import { agentView } from '../../fakes/agents';
import { item } from './staleness-fixtures';

const reflective = getStalenessPolicy('reflective');

function simWith(params: Partial<SimParams>) {
  const sim = new SimModel({ seed: 7, params });
  const [s1, s2, s3] = sim.world.nicheStrategies('algebra');
  return { sim, s1: s1!, s2: s2!, s3: s3! };
}

const lesson = (...phrases: string[]) => `When working on Algebra, apply ${phrases.map((p) => `the ${p}`).join(' and ')}.`;
const applied = (receiver: string, text: string, version = 5, niche: string | null = 'algebra'): AppliedSinceEntry =>
  ({ kind: 'entry', text, niche, receiver, version, source: 'reflection', taskId: `task-${version}` });

function ctx(sim: SimModel, since: AppliedSinceEntry[], roster: AgentView[] = [agentView('a'), agentView('b')], seedKey = 'k'): StalenessContext {
  return { current: 20, tau: 8, since, roster, model: sim, seedKey };
}

describe('reflective against the simulated model (staleMisjudge 0, never malformed)', () => {
  const { sim, s1, s2, s3 } = simWith({ staleMisjudge: 0, malformed: 0 });

  it('drops an item whose strategies the receiver already got since', async () => {
    const d = await reflective.decide(item('a', lesson(s1.phrase), 2), ctx(sim, [applied('a', lesson(s1.phrase, s3.phrase))]));
    expect(d).toMatchObject({ action: 'drop', calledModel: true });
  });

  it('patches an item half of whose strategies are new, to name only the new ones', async () => {
    const d = await reflective.decide(item('a', lesson(s1.phrase, s2.phrase), 2), ctx(sim, [applied('a', lesson(s1.phrase))]));
    expect(d.action).toBe('patch');
    if (d.action !== 'patch') return;
    expect(d.request.entry.text).toContain(s2.phrase);
    expect(d.request.entry.text).not.toContain(s1.phrase);
    expect(d.request.entry.text.startsWith('When working on algebra')).toBe(true);
  });

  it('keeps an item whose strategies only other agents got (their archives are not the receiver\'s)', async () => {
    const d = await reflective.decide(item('a', lesson(s2.phrase), 2), ctx(sim, [applied('a', lesson(s1.phrase)), applied('b', lesson(s2.phrase))]));
    expect(d).toEqual({ action: 'keep', calledModel: true });
  });

  it('counts updates to the successor of a merged receiver', async () => {
    const roster = [{ ...agentView('a'), status: 'retired' as const, successor: 'b' }, agentView('b')];
    const since: AppliedSinceEntry[] = [applied('b', lesson(s1.phrase)), { kind: 'retired', agentId: 'a', successor: 'b' }];
    expect(await reflective.decide(item('a', lesson(s1.phrase), 2), ctx(sim, since, roster))).toMatchObject({ action: 'drop' });
  });

  it('an item naming no strategy is kept, unless the receiver got the same text', async () => {
    const text = 'Re-read the question once more.';
    expect(await reflective.decide(item('a', text, 2), ctx(sim, [applied('a', lesson(s1.phrase))]))).toMatchObject({ action: 'keep' });
    expect(await reflective.decide(item('a', text, 2), ctx(sim, [applied('a', ' re-read the QUESTION once more. ')]))).toMatchObject({ action: 'drop' });
  });

  it('a meta-insight patch reads as a meta-insight', async () => {
    const d = await reflective.decide(item('a', `On any task, use the ${s1.phrase} and the ${s2.phrase}.`, 2, null, 'insight'), ctx(sim, [applied('a', lesson(s1.phrase))]));
    expect(d.action).toBe('patch');
    if (d.action === 'patch') expect(d.request.entry.text.startsWith('On any task, use the')).toBe(true);
  });
});

describe('reflective against the simulated model (default parameters)', () => {
  it('misjudges about staleMisjudge of the redundant items as KEEP, and a malformed reply is a fallback', async () => {
    const { sim, s1 } = simWith({});
    const counts = { drop: 0, keep: 0, fallback: 0, patch: 0 };
    for (let i = 0; i < 400; i++) {
      const d = await reflective.decide(item('a', lesson(s1.phrase), 2), ctx(sim, [applied('a', lesson(s1.phrase))], undefined, `task-${i}/a/stale`));
      counts[d.action === 'keep' && d.fallback ? 'fallback' : d.action] += 1;
    }
    expect(counts.patch).toBe(0);
    expect(counts.keep / 400).toBeGreaterThan(0.05);
    expect(counts.keep / 400).toBeLessThan(0.15);
    expect(counts.fallback).toBeGreaterThan(0);
    expect(counts.drop).toBeGreaterThan(300);
  });

  it('with staleMisjudge 1 it keeps even a fully redundant item', async () => {
    const { sim, s1 } = simWith({ staleMisjudge: 1, malformed: 0 });
    const d = await reflective.decide(item('a', lesson(s1.phrase), 2), ctx(sim, [applied('a', lesson(s1.phrase))]));
    expect(d).toEqual({ action: 'keep', calledModel: true });
  });

  it('gives the same decision for the same seed key, whatever was asked before', async () => {
    const { sim, s1, s2 } = simWith({});
    const ask = (key: string) => reflective.decide(item('a', lesson(s1.phrase, s2.phrase), 2), ctx(sim, [applied('a', lesson(s1.phrase))], undefined, key));
    const first = await ask('x/1');
    await ask('x/2');
    expect(await ask('x/1')).toEqual(first);
  });
});
