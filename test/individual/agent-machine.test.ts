import { createActor } from 'xstate';
import { describe, expect, it } from 'vitest';
import { agentMachine } from '../../src/individual/agent-machine';
import { createHashEmbedder } from '../../src/llm/hash-embedder';

const embedder = createHashEmbedder();
const input = { id: 'agent-01', persona: 'p', dim: embedder.dim, eta: 0.5, c0: 0.5, origin: { kind: 'seed' as const, parents: [], poolVersion: 0 } };

describe('agent actor', () => {
  it('owns its competence: OBSERVE applies the EWMA and counts exposure', () => {
    const a = createActor(agentMachine, { input }).start();
    a.send({ type: 'OBSERVE', niche: 'algebra', reward: 1, poolVersion: 1 });
    a.send({ type: 'OBSERVE', niche: 'algebra', reward: 1, poolVersion: 2 });
    const c = a.getSnapshot().context;
    expect(c.competence.algebra).toBeCloseTo(0.875);
    expect(c.exposure.algebra).toBe(2);
    expect(c.history.map((h) => h.poolVersion)).toEqual([1, 2]);
  });

  it('adds experience to its own archive and retrieves it by niche', () => {
    const a = createActor(agentMachine, { input }).start();
    const key = embedder.embedSync('solve linear equations by isolating x');
    a.send({ type: 'ADD_EXPERIENCE', entry: { id: 'e1', text: 'isolate x first', niche: 'algebra', level: 'lesson', source: 'reflection', taskId: 't1', poolVersion: 0, key }, poolVersion: 1 });
    const r = a.getSnapshot().context.archive.retrieve(key, 'algebra', 3, 2);
    expect(r.lessons.map((e) => e.text)).toEqual(['isolate x first']);
    expect(a.getSnapshot().context.archive.retrieve(key, 'people-qa', 3, 2).lessons).toEqual([]);
  });

  it('retires into a final state that keeps its state and ignores further updates', () => {
    const a = createActor(agentMachine, { input }).start();
    a.send({ type: 'OBSERVE', niche: 'qa', reward: 1, poolVersion: 1 });
    a.send({ type: 'RETIRE', successor: 'agent-02' });
    a.send({ type: 'OBSERVE', niche: 'qa', reward: 0, poolVersion: 2 });
    const s = a.getSnapshot();
    expect(s.status).toBe('done');
    expect(s.context.successor).toBe('agent-02');
    expect(s.context.competence.qa).toBeCloseTo(0.75);
  });
});
