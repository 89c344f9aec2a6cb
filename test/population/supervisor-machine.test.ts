import { createActor } from 'xstate';
import { describe, expect, it } from 'vitest';
import { createHashEmbedder } from '../../src/llm/hash-embedder';
import { supervisorMachine } from '../../src/population/supervisor-machine';
import { viewRoster } from '../../src/individual/agent-view';

const dim = createHashEmbedder().dim;
const spawn = (id: string) => ({
  type: 'SPAWN_AGENT' as const,
  input: { id, persona: 'p', dim, eta: 0.5, c0: 0.5, origin: { kind: 'seed' as const, parents: [], poolVersion: 0 } },
});

describe('population supervisor', () => {
  it('spawns agents in order and routes an update only to the agents it names', () => {
    const s = createActor(supervisorMachine, { input: { dim, synergyEta: 0.2, synergy0: 0.5 } }).start();
    s.send(spawn('agent-01'));
    s.send(spawn('agent-02'));
    s.send({ type: 'APPLY_UPDATE', update: { taskId: 't', observations: [{ agentId: 'agent-02', niche: 'algebra', reward: 1 }], experiences: [] } });
    const roster = viewRoster(s.getSnapshot().context.agents);
    expect(roster.map((a) => a.id)).toEqual(['agent-01', 'agent-02']);
    expect(roster[0]!.competence).toEqual({});
    expect(roster[1]!.competence.algebra).toBeCloseTo(0.75);
    expect(roster[1]!.history.at(0)!.poolVersion).toBe(1);
  });

  it('bumps the pool version once per applied update', () => {
    const s = createActor(supervisorMachine, { input: { dim, synergyEta: 0.2, synergy0: 0.5 } }).start();
    s.send(spawn('agent-01'));
    for (let i = 0; i < 3; i++) s.send({ type: 'APPLY_UPDATE', update: { taskId: `t${i}`, observations: [], experiences: [] } });
    expect(s.getSnapshot().context.poolVersion).toBe(3);
  });
});
