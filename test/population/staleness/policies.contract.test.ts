import { describe, expect, it } from 'vitest';
import { STALENESS_POLICIES, type AppliedSinceEntry, type StalenessContext, type StalenessPolicy } from '../../../src/index';
import { STALENESS_POLICY_KINDS } from '../../../src/population/staleness';
import { agentView } from '../../fakes/agents';
import { RecordingModel } from '../../fakes/recording-model';
import { item } from './staleness-fixtures';

/**
 * Every staleness policy keeps its TSDoc contract (population/staleness/policy.ts): never throws for a
 * failed call or an unusable reply, deterministic for the same item, context and seed key, never sees a
 * reward, and says whether it called the model. A policy's own exceptions are declared below, with why.
 */
const EXCEPTIONS: Readonly<Record<string, { readonly callsModel: boolean; readonly why: string }>> = {
  full: { callsModel: false, why: 'applies everything: it never examines an item' },
  guarded: { callsModel: false, why: 'decides on the version gap alone' },
  reflective: { callsModel: true, why: 'asks the model about items staler than tau' },
};

const since: AppliedSinceEntry[] = [
  { kind: 'entry', text: 'When working on algebra, apply the lattice-ledger pass.', niche: 'algebra', receiver: 'a', version: 7, source: 'codream', taskId: 'task-7' },
];
const ctx = (model: RecordingModel, current: number, over: Partial<StalenessContext> = {}): StalenessContext =>
  ({ current, tau: 4, since, roster: [agentView('a')], model, seedKey: 'task-1/a/stale', ...over });
const stale = () => item('a', 'When working on algebra, apply the lattice-ledger pass.', 1);

describe.each(STALENESS_POLICY_KINDS.list().map((p) => [p.name, p] as const))('staleness policy contract: %s', (name, policy: StalenessPolicy) => {
  const declared = EXCEPTIONS[name];

  it('declares itself (name, description) and its exceptions here', () => {
    expect(policy.description.length).toBeGreaterThan(10);
    // A built-in policy declares them; one added later gets the rest of the contract without (no edit here).
    if (STALENESS_POLICIES.some((p) => p.name === name)) expect(declared, `declare ${name}'s exceptions in this suite`).toBeDefined();
  });

  it('keeps an item within tau without a model call', async () => {
    const m = new RecordingModel('DROP');
    expect(await policy.decide(item('a', 'a lesson', 10), ctx(m, 12))).toEqual({ action: 'keep', calledModel: false });
    expect(m.calls).toHaveLength(0);
  });

  it('never throws, and keeps the item saying why, when the model fails or answers nonsense', async () => {
    for (const answer of [() => { throw new Error('503'); }, '{{{', '', 'maybe?']) {
      const m = new RecordingModel(answer as never);
      const d = await policy.decide(stale(), ctx(m, 20));
      expect(['keep', 'drop', 'patch']).toContain(d.action);
      expect(d.calledModel).toBe(m.calls.length > 0);
      if (declared && !declared.callsModel) expect(m.calls).toHaveLength(0);
      if (d.action === 'keep' && m.calls.length > 0) expect(d.fallback).toBeTruthy();
    }
  });

  it('decides the same item the same way every time, and reports whether it called the model', async () => {
    const answers = () => new RecordingModel('{"verdict": "DROP", "reason": "the receiver already has it"}');
    const a = await policy.decide(stale(), ctx(answers(), 20));
    const b = await policy.decide(stale(), ctx(answers(), 20));
    expect(a).toEqual(b);
    if (declared) expect(a.calledModel).toBe(declared.callsModel);
  });

  it('never shows a reward or a gold answer to the model', async () => {
    const m = new RecordingModel('{"verdict": "KEEP"}');
    await policy.decide(stale(), ctx(m, 20));
    for (const p of m.prompts()) expect(p).not.toMatch(/reward|gold/i);
  });
});
