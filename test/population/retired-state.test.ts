import { createActor } from 'xstate';
import { describe, expect, it } from 'vitest';
import { createHashEmbedder } from '../../src/llm/hash-embedder';
import { viewAgent, viewRoster } from '../../src/individual/agent-view';
import type { ArchiveEntry } from '../../src/individual/archive';
import { rejectSupervisorEvent, supervisorMachine } from '../../src/population/supervisor-machine';
import { sendToSupervisor, type Supervisor } from '../../src/population/supervisor-ops';

const embed = createHashEmbedder();
const DIM = embed.dim;
const origin = { kind: 'seed' as const, parents: [], poolVersion: 0 };
const pool = () => createActor(supervisorMachine, { input: { dim: DIM, synergyEta: 0.2, synergy0: 0.5 } }).start() as Supervisor;
const entry = (id: string, niche: string | null): ArchiveEntry => ({
  id, text: `lesson ${id}`, niche, level: niche === null ? 'meta' : 'lesson', source: 'reflection', taskId: id, poolVersion: 0, key: embed.embedSync(`lesson ${id}`),
});
const learn = (s: Supervisor, agentId: string, ids: readonly string[], niche: string | null = 'algebra') =>
  sendToSupervisor(s, { type: 'APPLY_UPDATE', update: { taskId: `${agentId}-${ids[0]}`, observations: [], experiences: ids.map((id) => ({ agentId, entry: entry(id, niche) })) } });

describe('retired agents: reported from a small record, their archives out of memory', () => {
  it('keeps a retired agent in the roster with its archive counts, and no entries', () => {
    const s = pool();
    sendToSupervisor(s, { type: 'SPAWN_AGENT', input: { id: 'a', persona: 'p', dim: DIM, eta: 0.5, c0: 0.5, origin } });
    sendToSupervisor(s, { type: 'SPAWN_AGENT', input: { id: 'b', persona: 'p', dim: DIM, eta: 0.5, c0: 0.5, origin } });
    learn(s, 'a', ['x1', 'x2', 'x3']);
    learn(s, 'a', ['m1'], null);
    // A view a task in flight took before the retirement.
    const inFlight = viewAgent(s.getSnapshot().context.agents.get('a')!);
    sendToSupervisor(s, { type: 'RETIRE_AGENT', id: 'a' });

    const a = viewRoster(s.getSnapshot().context.agents, false).find((v) => v.id === 'a')!;
    expect(a.status).toBe('retired');
    expect([a.archive.size(), a.archive.metaSize(), a.archive.sizeByNiche()]).toEqual([4, 1, { algebra: 3 }]);
    expect(a.archive.isRetired).toBe(true);
    expect(a.archive.stored()).toBe(0);
    expect(() => a.archive.entries()).toThrow(/retired agent's archive keeps only its counts/);
    // The task in flight still reads the archive it started with.
    expect(inFlight.archive.retrieve(embed.embedSync('lesson x2'), 'algebra', 1, 0).lessons.map((e) => e.id)).toEqual(['x2']);
    // A retired agent cannot be absorbed, nor absorb: said before anything is applied.
    expect(rejectSupervisorEvent(s.getSnapshot().context, { type: 'MERGE_AGENTS', keep: 'b', retire: 'a' })).toBe('merge: a is already retired');
    expect(rejectSupervisorEvent(s.getSnapshot().context, { type: 'MERGE_AGENTS', keep: 'a', retire: 'b' })).toBe('merge: a is retired and cannot absorb b');
  });

  it('under lifecycle churn holds entries for the active agents only, however many retired', () => {
    const s = pool();
    const active = 4;
    for (let i = 0; i < active; i++) sendToSupervisor(s, { type: 'SPAWN_AGENT', input: { id: `g0-${i}`, persona: 'p', dim: DIM, eta: 0.5, c0: 0.5, origin } });
    const generations = 12;
    for (let g = 0; g < generations; g++) {
      for (let i = 0; i < active; i++) learn(s, `g${g}-${i}`, Array.from({ length: 5 }, (_, k) => `g${g}-${i}-${k}`));
      // Each agent of the generation is replaced by a child that inherits its archive, then retired
      // (one merged into a sibling, the others pruned).
      for (let i = 0; i < active; i++) {
        const parent = viewAgent(s.getSnapshot().context.agents.get(`g${g}-${i}`)!);
        sendToSupervisor(s, { type: 'SPAWN_AGENT', input: { id: `g${g + 1}-${i}`, persona: 'p', dim: DIM, eta: 0.5, c0: 0.5, origin, archive: parent.archive.clone() } });
      }
      sendToSupervisor(s, { type: 'MERGE_AGENTS', keep: `g${g}-1`, retire: `g${g}-0` });
      for (let i = 1; i < active; i++) sendToSupervisor(s, { type: 'RETIRE_AGENT', id: `g${g}-${i}` });
    }
    const ctx = s.getSnapshot().context;
    const roster = viewRoster(ctx.agents, false);
    expect(roster).toHaveLength(active * (generations + 1));
    expect(roster.filter((v) => v.status === 'active')).toHaveLength(active);
    // Every archive still holding entries in memory is an active agent's.
    const holding = roster.filter((v) => !v.archive.isRetired);
    expect(holding.map((v) => v.id)).toEqual([...ctx.active.keys()]);
    // Retired agents still report what they held: an agent of generation 3 inherited its line's
    // 15 lessons and learned 5; g3-1 also absorbed its merged sibling's 20.
    expect(roster.find((v) => v.id === 'g3-2')!.archive.size()).toBe(20);
    expect(roster.find((v) => v.id === 'g3-1')!.archive.size()).toBe(40);
    expect(roster.find((v) => v.id === 'g3-1')!.successor).toBeNull();
    expect(roster.find((v) => v.id === 'g3-0')!.successor).toBe('g3-1');
  });
});
