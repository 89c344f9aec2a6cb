import { describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import { Archive } from '../../src/individual/archive';
import { createHashEmbedder } from '../../src/llm/hash-embedder';
import { AgentFailedError, viewAgent, viewRoster } from '../../src/individual/agent-view';
import { supervisorMachine } from '../../src/population/supervisor-machine';
import { sendToSupervisor, SupervisorFailedError, supervisorFailure, SupervisorRejectedError, type Supervisor } from '../../src/population/supervisor-ops';

const dim = createHashEmbedder().dim;
const spawn = (id: string) => ({
  type: 'SPAWN_AGENT' as const,
  input: { id, persona: 'p', dim, eta: 0.5, c0: 0.5, origin: { kind: 'seed' as const, parents: [], poolVersion: 0 } },
});

function supervisor(): Supervisor {
  const s = createActor(supervisorMachine, { input: { dim, synergyEta: 0.2, synergy0: 0.5 } });
  // Without an observer xstate rethrows the failure from a timer (vitest reports it as unhandled).
  s.subscribe({ error: () => {} });
  return s.start() as Supervisor;
}

const entry = (key: Float32Array) => ({ id: 'e1', text: 'isolate x', niche: 'algebra', level: 'lesson' as const, source: 'reflection' as const, taskId: 't', poolVersion: 0, key });

describe('supervisor: invalid input fails loudly and at once', () => {
  it('a duplicate SPAWN_AGENT is refused at the sender before it is sent; the supervisor runs on', () => {
    const s = supervisor();
    sendToSupervisor(s, spawn('agent-01'));
    expect(() => sendToSupervisor(s, spawn('agent-01'))).toThrow(/population supervisor refused the event: spawn: agent id already in the pool: agent-01/);
    expect(() => sendToSupervisor(s, spawn('agent-01'))).toThrow(SupervisorRejectedError);
    expect(supervisorFailure(s)).toBeNull();
    sendToSupervisor(s, spawn('agent-02'));
    expect([...s.getSnapshot().context.agents.keys()]).toEqual(['agent-01', 'agent-02']);
  });

  it('an invalid event sent around the check fails the supervisor as a state, not a throw, and every later event throws instead of being dropped', () => {
    const s = supervisor();
    sendToSupervisor(s, spawn('agent-01'));
    s.send({ type: 'RETIRE_AGENT', id: 'agent-07' });
    expect(s.getSnapshot().status).toBe('active');
    expect(s.getSnapshot().value).toBe('failed');
    expect(supervisorFailure(s)?.message).toBe('population supervisor failed: retire: unknown agent agent-07');
    expect(() => sendToSupervisor(s, spawn('agent-02'))).toThrow(SupervisorFailedError);
  });

  it('an experience key of the wrong dimension is rejected before anything is applied', () => {
    const s = supervisor();
    sendToSupervisor(s, spawn('agent-01'));
    const update = { taskId: 't1', observations: [{ agentId: 'agent-01', niche: 'algebra', reward: 1 }], experiences: [{ agentId: 'agent-01', entry: entry(new Float32Array(8)) }] };
    expect(() => sendToSupervisor(s, { type: 'APPLY_UPDATE', update })).toThrow(/key of length 8, its archive's dimension is 256/);
    // Nothing of the update reached the agent (validated whole before any event was sent).
    expect(s.getSnapshot().context.agents.get('agent-01')!.getSnapshot().context.exposure).toEqual({});
  });

  it('an agent that fails takes the supervisor with it, and is never viewed as active', () => {
    const s = supervisor();
    sendToSupervisor(s, spawn('agent-01'));
    sendToSupervisor(s, spawn('agent-02'));
    const small = new Archive({ dim: 8 });
    small.add(entry(new Float32Array(8).fill(1)));
    // An event that bypasses the supervisor's validation: the agent refuses it (no action throws),
    // moves to its failed state and tells the supervisor.
    s.getSnapshot().context.agents.get('agent-02')!.send({ type: 'ABSORB', archive: small });
    const ref = s.getSnapshot().context.agents.get('agent-02')!;
    expect(ref.getSnapshot().value).toBe('failed');
    expect(() => viewAgent(ref)).toThrow(AgentFailedError);
    expect(() => viewRoster(s.getSnapshot().context.agents)).toThrow(/agent agent-02 failed: ABSORB: an archive of dimension 8, its archive's dimension is 256/);
    expect(supervisorFailure(s)?.message).toMatch(/population supervisor failed: agent agent-02 failed/);
  });

  it('a key of the wrong dimension for a new agent\'s archive fails the spawn', () => {
    const s = supervisor();
    const bad = { ...spawn('agent-01'), input: { ...spawn('agent-01').input, archive: new Archive({ dim: 8 }) } };
    expect(() => sendToSupervisor(s, bad)).toThrow(/archive dimension 8 does not match 256/);
  });
});
