import { describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import { agentMachine } from '../../src/individual/agent-machine';
import { applyPoolUpdate, sendToSupervisor, type Supervisor } from '../../src/population/supervisor-ops';
import { Archive, type ArchiveEntry } from '../../src/individual/archive';
import { createHashEmbedder } from '../../src/llm/hash-embedder';
import { leadershipKey } from '../../src/team/leadlearn/leadership-bank';
import { supervisorMachine, type PoolUpdate } from '../../src/population/supervisor-machine';

const embedder = createHashEmbedder();
const dim = embedder.dim;
const origin = { kind: 'seed' as const, parents: [], poolVersion: 0 };
const entry = (id: string, text: string, niche: string | null = 'algebra'): ArchiveEntry => ({
  id, text, niche, level: niche === null ? 'meta' : 'lesson', source: 'reflection', taskId: id, poolVersion: 0, key: embedder.embedSync(text),
});

/** Everything a reader can see of an archive, as plain data. */
const archiveSeen = (a: Archive) => ({
  texts: a.entries().map((e) => e.text), size: a.size(), byNiche: a.sizeByNiche(), meta: a.metaSize(),
  hasLater: a.has('substitute back to check', 'algebra'),
  found: a.retrieve(embedder.embedSync('substitute back'), 'algebra', 5, 5).lessons.map((e) => e.text),
});

function supervisor(): Supervisor {
  const s = createActor(supervisorMachine, { input: { dim, synergyEta: 0.5, synergy0: 0.5 } }) as Supervisor;
  s.subscribe({ error: () => {} });
  s.start();
  for (const id of ['agent-01', 'agent-02']) sendToSupervisor(s, { type: 'SPAWN_AGENT', input: { id, persona: `p ${id}`, dim, eta: 0.5, c0: 0.5, origin } });
  return s;
}

const update = (n: number, text: string): PoolUpdate => ({
  taskId: `t${n}`,
  observations: [{ agentId: 'agent-01', niche: 'algebra', reward: n % 2 }, { agentId: 'agent-02', niche: 'algebra', reward: 1 }],
  experiences: [{ agentId: 'agent-01', entry: entry(`e${n}`, text) }],
  team: { members: ['agent-01', 'agent-02'], niche: 'algebra', reward: n % 2 },
  leadership: {
    id: `lead-t${n}`, taskId: `t${n}`, niche: 'algebra', difficulty: 0.5, teamProfile: [0.5, 0.5, 0.5], structure: 'voting', outcome: n % 2,
    note: '', poolVersion: n - 1, key: leadershipKey(embedder.embedSync('algebra'), [0.5, 0.5, 0.5]),
  },
});

describe('snapshots never change after they are taken', () => {
  it("an agent's old snapshot keeps its archive, history and competence after later updates", () => {
    const a = createActor(agentMachine, { input: { id: 'agent-01', persona: 'p', dim, eta: 0.5, c0: 0.5, origin } }).start();
    a.send({ type: 'OBSERVE', niche: 'algebra', reward: 1, poolVersion: 1 });
    a.send({ type: 'ADD_EXPERIENCE', entry: entry('e1', 'isolate x first'), poolVersion: 1 });
    const old = a.getSnapshot().context;
    const seen = JSON.stringify({ archive: archiveSeen(old.archive), history: old.history, competence: old.competence, exposure: old.exposure });

    a.send({ type: 'OBSERVE', niche: 'algebra', reward: 0, poolVersion: 2 });
    a.send({ type: 'ADD_EXPERIENCE', entry: entry('e2', 'substitute back to check'), poolVersion: 2 });
    const other = new Archive({ dim });
    other.add(entry('e3', 'draw the graph', null));
    a.send({ type: 'ABSORB', archive: other });

    expect(JSON.stringify({ archive: archiveSeen(old.archive), history: old.history, competence: old.competence, exposure: old.exposure })).toBe(seen);
    const now = a.getSnapshot().context;
    expect(now.archive.size()).toBe(3);
    expect(now.history.map((h) => h.reward)).toEqual([1, 0]);
    expect(old.history.map((h) => h.reward)).toEqual([1]);
  });

  it("the supervisor's old snapshot keeps its version, bank and synergy after later updates, and the agents' old views their state", () => {
    const s = supervisor();
    applyPoolUpdate(s, update(1, 'isolate x first'));
    const old = s.getSnapshot().context;
    const oldAgent = old.agents.get('agent-01')!.getSnapshot().context;
    const key = leadershipKey(embedder.embedSync('algebra'), [0.5, 0.5, 0.5]);
    const seen = () => JSON.stringify({
      version: old.poolVersion, bankSize: old.bank.size, bank: old.bank.query(key, 10).map((e) => [e.id, e.note]),
      stats: old.bank.stats.forNiche('algebra', ['voting']), entries: old.bank.entries().map((e) => [e.id, e.note]),
      synergy: old.synergy.get('agent-01', 'agent-02', 'algebra', 0.5), cells: old.synergy.size,
      agent: [archiveSeen(oldAgent.archive), oldAgent.history.toArray(), oldAgent.competence],
    });
    const before = seen();

    applyPoolUpdate(s, update(2, 'substitute back to check'));
    applyPoolUpdate(s, { taskId: 't1-evolve', observations: [], experiences: [], note: { entryId: 'lead-t1', note: 'voting settles algebra' } });
    sendToSupervisor(s, { type: 'BUMP_VERSION' });

    expect(seen()).toBe(before);
    const now = s.getSnapshot().context;
    expect(now.poolVersion).toBe(4);
    expect(now.bank.size).toBe(2);
    expect(now.bank.entries().map((e) => e.note)).toEqual(['voting settles algebra', '']);
    expect(old.bank.entries().map((e) => e.note)).toEqual(['']);
    expect(now.synergy.get('agent-01', 'agent-02', 'algebra', 0.5)).not.toBe(old.synergy.get('agent-01', 'agent-02', 'algebra', 0.5));
  });

  it('applyPoolUpdate answers with the change set the supervisor emitted for that update', () => {
    const s = supervisor();
    const changes = applyPoolUpdate(s, update(1, 'isolate x first'));
    expect(changes).toMatchObject({ taskId: 't1', poolVersion: 1, entries: [{ status: 'stored', receiver: 'agent-01' }], leadership: { id: 'lead-t1', committedAt: 1 } });
    expect(changes.observed.map((o) => [o.agentId, o.competence])).toEqual([['agent-01', 0.75], ['agent-02', 0.75]]);
    expect(changes.synergy).toEqual([{ a: 'agent-01', b: 'agent-02', niche: 'algebra', value: 0.75 }]);
    // The same text again is a duplicate, as the archive the agent holds now says.
    expect(applyPoolUpdate(s, { ...update(2, 'isolate x first'), leadership: undefined }).entries[0]!.status).toBe('duplicate');
  });

  it('an archive version extended from an old one copies before it grows: neither sees the other', () => {
    const base = new Archive({ dim }).with(entry('e1', 'isolate x first'));
    const left = base.with(entry('e2', 'substitute back to check'));
    const right = base.with(entry('e3', 'factor the quadratic'));
    expect(base.entries().map((e) => e.id)).toEqual(['e1']);
    expect(left.entries().map((e) => e.id)).toEqual(['e1', 'e2']);
    expect(right.entries().map((e) => e.id)).toEqual(['e1', 'e3']);
    expect(right.has('substitute back to check', 'algebra')).toBe(false);
    expect(right.retrieve(embedder.embedSync('substitute back to check'), 'algebra', 5, 0).lessons.map((e) => e.id).sort()).toEqual(['e1', 'e3']);
    expect(base.with(entry('e4', 'Isolate X first'))).toBe(base);
  });
});
