import { describe, expect, it } from 'vitest';
import { STALENESS_POLICIES, type AgentView, type AppliedSinceEntry, type StalenessContext } from '../../../src/index';
import { createHashEmbedder } from '../../../src/llm/hash-embedder';
import { getStalenessPolicy } from '../../../src/population/staleness';
import { stalenessEvent } from '../../../src/population/staleness/staleness-events';
import { agentView } from '../../fakes/agents';
import { RecordingModel } from '../../fakes/recording-model';
import { item } from './staleness-fixtures';

const full = getStalenessPolicy('full');
const guarded = getStalenessPolicy('guarded');
const reflective = getStalenessPolicy('reflective');

function ctx(model: RecordingModel, current: number, over: Partial<StalenessContext> = {}): StalenessContext {
  return { current, tau: 4, since: [], roster: [agentView('a')], model, seedKey: 'task-1/a/stale', ...over };
}

const since: AppliedSinceEntry[] = [
  { kind: 'entry', text: 'When working on algebra, apply the lattice-ledger pass.', niche: 'algebra', receiver: 'a', version: 7, source: 'codream', taskId: 'task-7' },
];

describe('staleness registry', () => {
  it('lists full, guarded and reflective, and names them when asked for another', () => {
    expect(STALENESS_POLICIES.map((p) => p.name)).toEqual(['full', 'guarded', 'reflective']);
    expect(() => getStalenessPolicy('lazy')).toThrow('unknown staleness policy "lazy" (policies: full, guarded, reflective)');
  });
});

describe('full and guarded', () => {
  const m = new RecordingModel('KEEP');
  it('full keeps an item however stale', async () => {
    expect(await full.decide(item('a', 'lesson', 0), ctx(m, 1000))).toEqual({ action: 'keep', calledModel: false });
  });

  it('guarded keeps a gap of exactly tau and drops one beyond it, without a call', async () => {
    expect(await guarded.decide(item('a', 'lesson', 6), ctx(m, 10))).toEqual({ action: 'keep', calledModel: false });
    const d = await guarded.decide(item('a', 'lesson', 5), ctx(m, 10));
    expect(d).toEqual({ action: 'drop', reason: 'version gap 5 exceeds tau 4', calledModel: false });
    expect(m.calls).toHaveLength(0);
  });

  it('guarded with tau 0 drops anything that is not current', async () => {
    expect((await guarded.decide(item('a', 'lesson', 9), ctx(m, 10, { tau: 0 }))).action).toBe('drop');
    expect((await guarded.decide(item('a', 'lesson', 10), ctx(m, 10, { tau: 0 }))).action).toBe('keep');
  });
});

describe('reflective (recording model)', () => {
  it('keeps an item within tau without a call', async () => {
    const m = new RecordingModel('DROP');
    expect(await reflective.decide(item('a', 'lesson', 6), ctx(m, 10))).toEqual({ action: 'keep', calledModel: false });
    expect(m.calls).toHaveLength(0);
  });

  it('asks once, at stage reflect, showing the item and the updates since, and follows a DROP', async () => {
    const m = new RecordingModel('{"decision": "DROP", "reason": "already given"}');
    const d = await reflective.decide(item('a', 'apply the lattice-ledger pass', 2), ctx(m, 10, { since }));
    expect(d).toEqual({ action: 'drop', reason: 'already given', calledModel: true });
    expect(m.calls).toHaveLength(1);
    expect(m.calls[0]).toMatchObject({ stage: 'reflect', agentId: 'a', taskId: 'task-2', seedKey: 'task-1/a/stale' });
    const prompt = m.prompts()[0]!;
    expect(prompt).toContain('pool version 2');
    expect(prompt).toContain('version 10, 8 versions later');
    expect(prompt).toContain('Text: apply the lattice-ledger pass');
    expect(prompt).toContain('- v7 to a [niche algebra] (codream): When working on algebra, apply the lattice-ledger pass.');
  });

  it('a PATCH replaces the text and embeds it as reflection does (question, newline, text)', async () => {
    const m = new RecordingModel('```json\n{"decision": "PATCH", "text": "Use the helix-orbit sweep.", "reason": "half was given"}\n```');
    const it = item('a', 'Use the lattice-ledger pass and the helix-orbit sweep.', 1);
    const d = await reflective.decide(it, ctx(m, 10, { since }));
    expect(d.action).toBe('patch');
    if (d.action !== 'patch') return;
    expect(d.reason).toBe('half was given');
    expect(d.request.agentId).toBe('a');
    expect(d.request.entry).toMatchObject({ id: it.request.entry.id, text: 'Use the helix-orbit sweep.', niche: 'algebra', source: 'reflection' });
    const [expected] = await createHashEmbedder().embed([`${it.question}\nUse the helix-orbit sweep.`]);
    expect([...d.request.entry.key]).toEqual([...expected!]);
    expect(stalenessEvent(it, d, 10)).toMatchObject({ type: 'evolve.patched', taskId: 'task-1', agentId: 'a', gap: 9, to: 'Use the helix-orbit sweep.' });
  });

  it('keeps with a fallback on an unusable reply, a PATCH without text, or a failed call', async () => {
    for (const reply of ['I am not sure.', '{"decision": "PATCH"}']) {
      const d = await reflective.decide(item('a', 'lesson', 0), ctx(new RecordingModel(reply), 10));
      expect(d).toEqual({ action: 'keep', calledModel: true, fallback: 'unusable reply' });
    }
    const failing = new RecordingModel(() => { throw new Error('out of retries'); });
    const it = item('a', 'lesson', 0);
    const d = await reflective.decide(it, ctx(failing, 10));
    expect(d).toEqual({ action: 'keep', calledModel: true, fallback: 'model call failed: out of retries' });
    expect(stalenessEvent(it, d, 10)).toMatchObject({ type: 'evolve.fallback', cause: 'model call failed: out of retries', gap: 10 });
  });

  it('a PATCH that repeats the text is a keep', async () => {
    const m = new RecordingModel('{"decision": "PATCH", "text": "  the Lesson "}');
    expect(await reflective.decide(item('a', 'the lesson', 0), ctx(m, 10))).toEqual({ action: 'keep', calledModel: true });
  });

  it('drops without a call an item whose receiver was pruned, and asks about one merged into a successor', async () => {
    const m = new RecordingModel('KEEP');
    const roster: AgentView[] = [{ ...agentView('a'), status: 'retired', successor: null }];
    const d = await reflective.decide(item('a', 'lesson', 0), ctx(m, 10, { roster }));
    expect(d).toMatchObject({ action: 'drop', calledModel: false });
    expect(m.calls).toHaveLength(0);
    const merged: AgentView[] = [{ ...agentView('a'), status: 'retired', successor: 'b' }, agentView('b')];
    const kept = await reflective.decide(item('a', 'lesson', 0), ctx(m, 10, { roster: merged, since: [{ kind: 'retired', agentId: 'a', successor: 'b' }] }));
    expect(kept).toEqual({ action: 'keep', calledModel: true });
    expect(m.prompts()[0]).toContain('- a retired and was merged into b');
  });

  it('a plain keep has no event; a drop has one with its reason', () => {
    const it = item('a', 'lesson', 3);
    expect(stalenessEvent(it, { action: 'keep', calledModel: false }, 5)).toBeNull();
    expect(stalenessEvent(it, { action: 'drop', reason: 'r', calledModel: false }, 5)).toMatchObject({ type: 'evolve.dropped', reason: 'r', gap: 2, version: 3, current: 5 });
  });
});
