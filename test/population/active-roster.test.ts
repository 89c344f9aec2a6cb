import { describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import { createHashEmbedder } from '../../src/llm/hash-embedder';
import { viewRoster } from '../../src/individual/agent-view';
import { supervisorMachine } from '../../src/population/supervisor-machine';
import { sendToSupervisor, type Supervisor } from '../../src/population/supervisor-ops';
import { receiverChain } from '../../src/population/staleness/applied-history';

const dim = createHashEmbedder().dim;
const spawn = (id: string) => ({
  type: 'SPAWN_AGENT' as const,
  input: { id, persona: 'p', dim, eta: 0.5, c0: 0.5, origin: { kind: 'seed' as const, parents: [], poolVersion: 0 } },
});

describe('the active roster (what per-task work scans)', () => {
  it('holds the active agents in spawn order; retired and merged ones leave it and stay in `agents`', () => {
    const s = createActor(supervisorMachine, { input: { dim, synergyEta: 0.2, synergy0: 0.5 } }).start() as Supervisor;
    for (const id of ['a', 'b', 'c', 'd']) sendToSupervisor(s, spawn(id));
    const before = s.getSnapshot().context.active;
    sendToSupervisor(s, { type: 'RETIRE_AGENT', id: 'b' });
    sendToSupervisor(s, { type: 'MERGE_AGENTS', keep: 'd', retire: 'a' });
    const ctx = s.getSnapshot().context;
    expect([...ctx.active.keys()]).toEqual(['c', 'd']);
    expect([...ctx.agents.keys()]).toEqual(['a', 'b', 'c', 'd']);
    // A snapshot taken before keeps its roster (tasks in flight keep theirs).
    expect([...before.keys()]).toEqual(['a', 'b', 'c', 'd']);
    expect(viewRoster(ctx.active).map((a) => a.id)).toEqual(viewRoster(ctx.agents).map((a) => a.id));
    // Staleness follows merges by looking agents up by id, retired ones included.
    const all = viewRoster(ctx.agents, false);
    const byId = (id: string) => all.find((a) => a.id === id);
    expect(receiverChain('a', byId)).toEqual(receiverChain('a', all));
    expect(receiverChain('a', byId).chain).toEqual(['a', 'd']);
  });
});
