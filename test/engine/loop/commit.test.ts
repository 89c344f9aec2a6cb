import { describe, expect, it } from 'vitest';
import { createActor, enqueueActions } from 'xstate';
import { commitEvolve, commitTask, type CommitDeps } from '../../../src/engine/loop/commit';
import type { EvolveOutcome } from '../../../src/engine/loop/evolve-stage';
import { SummaryBuilder } from '../../../src/engine/loop/summary';
import type { TaskOutcome } from '../../../src/engine/loop/task-run';
import type { KeyedDream, StageDeps } from '../../../src/engine/loop/task-stages';
import type { ArchiveEntry } from '../../../src/individual/archive';
import type { Reflection } from '../../../src/individual/reflection';
import { createHashEmbedder } from '../../../src/llm/hash-embedder';
import { viewAgent } from '../../../src/individual/agent-view';
import { median } from '../../../src/population/specialization';
import { supervisorMachine, type PoolUpdate, type UpdateChanges } from '../../../src/population/supervisor-machine';
import { sendToSupervisor, type Supervisor } from '../../../src/population/supervisor-ops';
import type { EventLog } from '../../../src/store/event-log';
import type { RunEvent as EventBody } from '../../../src/store/events';
import type { Grade, Task } from '../../../src/tasks/task';
import type { Team } from '../../../src/team/team';

const embedder = createHashEmbedder();
const dim = embedder.dim;
const task: Task = {
  id: 'algebra-0007', index: 7, niche: 'algebra', domain: 'math', difficulty: 2, block: 0,
  question: 'Solve 3x + 1 = 13.', hidden: { answer: '4', distractors: ['3'] },
};

/** An event log double that keeps what is appended. */
function memoryLog(): EventLog & { events: EventBody[] } {
  const events: EventBody[] = [];
  return { events, append: (e: EventBody) => { events.push(e); return { id: 'x', seq: events.length - 1, ...e }; } } as unknown as EventLog & { events: EventBody[] };
}

function supervisor(machine = supervisorMachine): Supervisor {
  const s = createActor(machine, { input: { dim, synergyEta: 0.2, synergy0: 0.5 } });
  s.subscribe({ error: () => {} });
  return s.start() as Supervisor;
}

function spawn(s: Supervisor, id: string, competence: Record<string, number> = {}): void {
  sendToSupervisor(s, { type: 'SPAWN_AGENT', input: { id, persona: `persona of ${id}`, dim, eta: 0.5, c0: 0.5, competence, origin: { kind: 'seed', parents: [], poolVersion: 0 } } });
}

const grade = (reward: number): Grade => ({ reward, correct: reward === 1, extracted: String(reward), detail: '' });

function lesson(agentId: string, text: string): ArchiveEntry {
  return { id: `${agentId}:${task.id}:lesson`, text, niche: 'algebra', level: 'lesson', source: 'reflection', taskId: task.id, poolVersion: 0, key: embedder.embedSync(text) };
}

/** A graded outcome of `task` by `members` (all rewarded `reward`), each reflecting the given lesson. */
function outcome(members: string[], reward: number, lessons: Record<string, string> = {}, dream: KeyedDream | null = null): Both {
  const team = { members: members.map((id, i) => ({ agent: { id }, role: (['anchor', 'complement', 'scout'] as const)[i] })) } as unknown as Team;
  const reflections: Reflection[] = Object.entries(lessons).map(([agentId, text]) => ({ agentId, entries: [lesson(agentId, text)], lesson: text, meta: null, parsed: true }));
  return {
    deps: { task, poolVersion: 0 } as unknown as StageDeps,
    team, choice: null, experience: new Map(), result: { finalText: '4', attempts: [], memberAnswers: {}, disagreement: false },
    grading: { team: grade(reward), members: Object.fromEntries(members.map((m) => [m, grade(reward)])), independent: {} },
    reflections, note: null, dream, error: null,
  };
}

/** A solve outcome with the evolve stage's products alongside (split by `commitBoth`). */
type Both = TaskOutcome & Pick<EvolveOutcome, 'reflections' | 'note' | 'dream'>;

/** Commit the solve outcome, then apply its evolve outcome, as the engine does for one task. */
async function commitBoth(d: CommitDeps, x: Both): Promise<void> {
  const { reflections, note, dream, ...out } = x;
  const changes = commitTask(d, out);
  await commitEvolve(d, { out, version: changes.poolVersion, reflections, note, dream, error: null });
}

function deps(s: Supervisor, log = memoryLog()): CommitDeps & { log: ReturnType<typeof memoryLog> } {
  return { supervisor: s, log, summary: new SummaryBuilder(['algebra']), c0: 0.5, routing: 'asymmetric' };
}

const ofType = (events: EventBody[], type: string) => events.filter((e) => e.type === type) as Array<EventBody & Record<string, any>>;

describe('commit: events derived from the change set the supervisor applied', () => {
  it('a retired member\'s observation is dropped, not reported as a competence update', async () => {
    const s = supervisor();
    for (const id of ['agent-01', 'agent-02', 'agent-03', 'agent-04']) spawn(s, id);
    sendToSupervisor(s, { type: 'RETIRE_AGENT', id: 'agent-03' });
    const d = deps(s);
    await commitBoth(d, outcome(['agent-01', 'agent-02', 'agent-03'], 1));
    const updated = ofType(d.log.events, 'competence.updated');
    expect(updated.map((e) => e.agentId)).toEqual(['agent-01', 'agent-02']);
    for (const e of updated) {
      const a = viewAgent(s.getSnapshot().context.agents.get(e.agentId)!);
      expect(e.competence).toBe(a.competence.algebra);
      expect(e.exposure).toBe(a.exposure.algebra);
    }
    expect(viewAgent(s.getSnapshot().context.agents.get('agent-03')!).exposure.algebra).toBeUndefined();
    expect(ofType(d.log.events, 'competence.dropped')).toMatchObject([{ agentId: 'agent-03', niche: 'algebra', reason: 'retired' }]);
  });

  it('a lesson for a merged-away agent names the successor that stored it; a pruned agent\'s lesson is not reported', async () => {
    const s = supervisor();
    for (const id of ['agent-01', 'agent-02', 'agent-03', 'agent-04']) spawn(s, id);
    sendToSupervisor(s, { type: 'MERGE_AGENTS', keep: 'agent-01', retire: 'agent-02' });
    sendToSupervisor(s, { type: 'RETIRE_AGENT', id: 'agent-04' });
    const d = deps(s);
    await commitBoth(d, outcome(['agent-02', 'agent-03', 'agent-04'], 0, { 'agent-02': 'isolate x first', 'agent-03': 'check the sign', 'agent-04': 'divide both sides' }));
    const added = ofType(d.log.events, 'lesson.added');
    expect(added.map((e) => [e.agentId, e.text, e.forwardedFrom])).toEqual([['agent-01', 'isolate x first', 'agent-02'], ['agent-03', 'check the sign', undefined]]);
    const agents = s.getSnapshot().context.agents;
    for (const e of added) expect(viewAgent(agents.get(e.agentId)!).archive.has(e.text, 'algebra')).toBe(true);
    expect(viewAgent(agents.get('agent-02')!).archive.size()).toBe(0);
    expect(viewAgent(agents.get('agent-04')!).archive.size()).toBe(0);
  });

  it('a lesson the receiver already holds is not reported again', async () => {
    const s = supervisor();
    for (const id of ['agent-01', 'agent-02']) spawn(s, id);
    const d = deps(s);
    await commitBoth(d, outcome(['agent-01', 'agent-02'], 1, { 'agent-01': 'isolate x first' }));
    const d2 = deps(s);
    await commitBoth(d2, { ...outcome(['agent-01', 'agent-02'], 1, { 'agent-01': '  Isolate X first ' }), deps: { task: { ...task, id: 'algebra-0008' }, poolVersion: 1 } as unknown as StageDeps });
    expect(ofType(d.log.events, 'lesson.added')).toHaveLength(1);
    expect(ofType(d2.log.events, 'lesson.added')).toHaveLength(0);
    expect(viewAgent(s.getSnapshot().context.agents.get('agent-01')!).archive.size()).toBe(1);
  });

  it('task.started is not written at commit (the engine writes it when the task starts)', async () => {
    const s = supervisor();
    for (const id of ['agent-01', 'agent-02']) spawn(s, id);
    const d = deps(s);
    await commitBoth(d, outcome(['agent-01', 'agent-02'], 1));
    expect(ofType(d.log.events, 'task.started')).toEqual([]);
    expect(d.log.events.at(-1)).toMatchObject({ type: 'task.done', status: 'graded', poolVersion: 1 });
  });

  it('with a supervisor double (.provide) that applies nothing, no event claims a pool change', async () => {
    // The double bumps the version and reports an empty change set, whatever the update asked for.
    const applyNothing = supervisorMachine.provide({
      actions: {
        applyUpdate: enqueueActions(({ context, event, enqueue }) => {
          const update = (event as unknown as { update: PoolUpdate }).update;
          const changes: UpdateChanges = { taskId: update.taskId, poolVersion: context.poolVersion + 1, observed: [], droppedObservations: [], entries: [], synergy: [], leadership: null, note: null };
          enqueue.assign({ poolVersion: context.poolVersion + 1 });
          enqueue.emit({ type: 'update.applied', changes });
        }),
      },
    });
    const s = supervisor(applyNothing);
    for (const id of ['agent-01', 'agent-02']) spawn(s, id);
    const d = deps(s);
    await commitBoth(d, outcome(['agent-01', 'agent-02'], 1, { 'agent-01': 'isolate x first' }));
    const types = new Set<string>(d.log.events.map((e) => e.type));
    for (const t of ['competence.updated', 'lesson.added', 'synergy.updated', 'leadlearn.entry', 'insight.routed']) expect(types.has(t)).toBe(false);
    // What the run did is still reported.
    expect([...types]).toEqual(expect.arrayContaining(['team.assembled', 'task.graded', 'reflection', 'task.done']));
  });

  it('with a supervisor double (.provide) that forwards a lesson, the event names the agent the double chose', async () => {
    const forward = supervisorMachine.provide({
      actions: {
        applyUpdate: enqueueActions(({ context, event, enqueue }) => {
          const update = (event as unknown as { update: PoolUpdate }).update;
          const entries = update.experiences.map((x) => ({ ...x, status: 'stored' as const, receiver: 'agent-09' }));
          const changes: UpdateChanges = { taskId: update.taskId, poolVersion: context.poolVersion + 1, observed: [], droppedObservations: [], entries, synergy: [], leadership: null, note: null };
          enqueue.assign({ poolVersion: context.poolVersion + 1 });
          enqueue.emit({ type: 'update.applied', changes });
        }),
      },
    });
    const s = supervisor(forward);
    for (const id of ['agent-01', 'agent-02']) spawn(s, id);
    const d = deps(s);
    await commitBoth(d, outcome(['agent-01', 'agent-02'], 1, { 'agent-01': 'isolate x first' }));
    expect(ofType(d.log.events, 'lesson.added')).toMatchObject([{ agentId: 'agent-09', forwardedFrom: 'agent-01', text: 'isolate x first' }]);
  });

  it('routes CoDream insights only to agents strictly below the pool median, as their state says', async () => {
    const s = supervisor();
    const comps = { 'agent-01': 0.9, 'agent-02': 0.2, 'agent-03': 0.5, 'agent-04': 0.35, 'agent-05': 0.7 };
    for (const [id, c] of Object.entries(comps)) spawn(s, id, { algebra: c });
    const insight = { id: `cd:${task.id}:0`, text: 'substitute back to check', level: 'subdomain' as const, niche: 'algebra', authors: ['agent-01', 'agent-05', 'agent-03'] };
    const dream: KeyedDream = { trigger: 'failure', insights: [insight], proposals: 1, kept: 1, usage: { promptTokens: 0, completionTokens: 0 }, failedCalls: [], keys: [embedder.embedSync(insight.text)] };
    const d = deps(s);
    await commitBoth(d, outcome(['agent-01', 'agent-05', 'agent-03'], 0, {}, dream));
    // Insights are routed when the evolve outcome is applied, over the pool as it is then: after the
    // task's own competence updates (agent-03's reward 0 took it from the median to below it).
    const now = Object.fromEntries(Object.keys(comps).map((id) => [id, viewAgent(s.getSnapshot().context.agents.get(id)!).competence.algebra!]));
    const below = Object.entries(now).filter(([, c]) => c < median(Object.values(now))).map(([id]) => id);
    expect(below).toEqual(['agent-02', 'agent-03']);
    expect(ofType(d.log.events, 'insight.routed').map((e) => e.to)).toEqual(below);
    for (const [id] of Object.entries(comps)) {
      expect(viewAgent(s.getSnapshot().context.agents.get(id)!).archive.has(insight.text, 'algebra')).toBe(below.includes(id));
    }
    expect(d.summary.build({} as never).codream).toEqual({ sessions: 1, insights: 1, routed: 2 });
  });
});
