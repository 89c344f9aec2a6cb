import { createActor, type ActorRefFrom } from 'xstate';
import { describe, expect, it } from 'vitest';
import { createRng } from '../../../src/core/rng';
import { Archive } from '../../../src/individual/archive';
import { loadBuiltinNicheSpecs } from '../../../src/tasks/niche-registry';
import type { EventLog } from '../../../src/store/event-log';
import { emptyLineage } from '../../../src/population/lifecycle';
import { forkOperator } from '../../../src/population/lifecycle/fork';
import { genesisOperator } from '../../../src/population/lifecycle/genesis';
import { DEFAULT_LIFECYCLE } from '../../../src/population/lifecycle/lifecycle-config';
import { runLifecycleWindow } from '../../../src/population/lifecycle/lifecycle-window';
import { mergeOperator } from '../../../src/population/lifecycle/merge';
import type { ApplyContext } from '../../../src/population/lifecycle/operator';
import { pruneOperator } from '../../../src/population/lifecycle/prune';
import { specializeOperator } from '../../../src/population/lifecycle/specialize';
import { viewAgent, viewRoster } from '../../../src/individual/agent-view';
import { StabilityTracker } from '../../../src/population/specialization';
import { supervisorMachine, type SupervisorEvent } from '../../../src/population/supervisor-machine';
import { RecordingModel } from '../../fakes/recording-model';

const dim = 4;
const specs = loadBuiltinNicheSpecs();
const NEW_PERSONA = 'You are a sharp algebra specialist who checks every step.';

/** An event log double: keeps what the lifecycle appends. */
function recordingLog(): EventLog & { events: Array<Record<string, unknown>> } {
  const events: Array<Record<string, unknown>> = [];
  return { events, append: (e: Record<string, unknown>) => (events.push(e), e) } as unknown as EventLog & { events: typeof events };
}

/**
 * The supervisor with its lifecycle actions replaced by doubles that only record the event
 * (xstate's `.provide()`): spawning stays real, so new agents can be inspected; retire, merge,
 * persona and version changes are asserted as the requests the operators sent.
 */
function supervisorWithDoubles() {
  const sent: SupervisorEvent[] = [];
  const record = ({ event }: { event: { type: string } }) => { sent.push(event as SupervisorEvent); };
  const machine = supervisorMachine.provide({
    actions: { retireAgent: record, mergeAgents: record, setPersona: record, bumpVersion: record },
  });
  const supervisor = createActor(machine, { input: { dim, synergyEta: 0.2, synergy0: 0.5 } }).start();
  return { supervisor, sent };
}

/** Seed agent `id` with two archive entries on `niche` and the given competence and exposure. */
function seed(supervisor: ActorRefFrom<typeof supervisorMachine>, id: string, competence: Record<string, number>, exposure: Record<string, number>) {
  const archive = new Archive({ dim });
  for (let i = 0; i < 2; i++) {
    archive.add({ id: `${id}:l${i}`, text: `${id} lesson ${i}`, niche: 'algebra', level: 'lesson', source: 'reflection', taskId: `t${i}`, poolVersion: 1, key: new Float32Array([1, i, 0, 0]) });
  }
  supervisor.send({
    type: 'SPAWN_AGENT',
    input: { id, persona: `You are ${id}.`, dim, eta: 0.2, c0: 0.5, archive, competence, exposure, origin: { kind: 'seed', parents: [], poolVersion: 0 } },
  });
}

function applyContext(supervisor: ActorRefFrom<typeof supervisorMachine>, log: EventLog, model = new RecordingModel(JSON.stringify({ persona: NEW_PERSONA }))): ApplyContext {
  let next = 10;
  return {
    supervisor, model, log, specs, window: 3, nichesSeen: ['algebra', 'arithmetic'], c0: 0.5, eta: 0.2, version: 42,
    newId: () => `agent-${next++}`,
  };
}

function pool() {
  const { supervisor, sent } = supervisorWithDoubles();
  seed(supervisor, 'agent-01', { algebra: 0.9, arithmetic: 0.4 }, { algebra: 12, arithmetic: 3 });
  seed(supervisor, 'agent-02', { algebra: 0.5, arithmetic: 0.6 }, { algebra: 4, arithmetic: 9 });
  seed(supervisor, 'agent-03', { algebra: 0.3, arithmetic: 0.8 }, { algebra: 2, arithmetic: 11 });
  return { supervisor, sent, log: recordingLog() };
}

describe('lifecycle apply, one operator at a time', () => {
  it('genesis spawns a child of the parent: its archive copied, its exposure inherited, the pool median as competence', async () => {
    const { supervisor, sent, log } = pool();
    const w = applyContext(supervisor, log);
    const agents = await genesisOperator.apply(w, { operator: 'genesis', parent: 'agent-02', niche: 'algebra', reason: 'algebra had no specialist' });
    expect(agents).toEqual(['agent-02', 'agent-10']);
    expect(sent).toEqual([]);
    const child = viewAgent(supervisor.getSnapshot().context.agents.get('agent-10')!);
    const parent = viewAgent(supervisor.getSnapshot().context.agents.get('agent-02')!);
    expect(child.status).toBe('active');
    expect(child.persona).toBe(NEW_PERSONA);
    expect(child.origin).toEqual({ kind: 'genesis', parents: ['agent-02'], poolVersion: 42, reason: 'algebra had no specialist' });
    expect(child.archive).not.toBe(parent.archive);
    expect(child.archive.entries().map((e) => e.id)).toEqual(parent.archive.entries().map((e) => e.id));
    expect(child.exposure).toEqual({ algebra: 4, arithmetic: 9 });
    expect(child.competence).toEqual({ algebra: 0.5, arithmetic: 0.6 });
    expect(log.events).toEqual([expect.objectContaining({
      type: 'agent.spawned', agentId: 'agent-10', origin: 'genesis', parents: ['agent-02'], persona: NEW_PERSONA,
      reason: 'algebra had no specialist', niche: 'algebra', poolVersion: 42, window: 3,
    })]);
    // The persona was asked of the parent's model for the niche, as a genesis.
    const prompt = (w.model as RecordingModel).prompts()[0]!;
    expect(prompt).toContain('cover an area nobody specialises in yet');
    expect(prompt).toContain('You are agent-02.');
  });

  it('fork clones the dominant parent (kept) with a mutated persona; the copy is independent of the parent', async () => {
    const { supervisor, log } = pool();
    const w = applyContext(supervisor, log);
    const agents = await forkOperator.apply(w, { operator: 'fork', parent: 'agent-01', niche: 'algebra', reason: 'agent-01 dominates algebra' });
    expect(agents).toEqual(['agent-01', 'agent-10']);
    const roster = viewRoster(supervisor.getSnapshot().context.agents);
    expect(roster.map((a) => a.id)).toEqual(['agent-01', 'agent-02', 'agent-03', 'agent-10']);
    const [parent, , , child] = roster;
    expect(child!.origin).toEqual({ kind: 'fork', parents: ['agent-01'], poolVersion: 42, reason: 'agent-01 dominates algebra' });
    expect(child!.archive.size()).toBe(2);
    child!.archive.add({ id: 'only-child', text: 'x', niche: 'algebra', level: 'lesson', source: 'reflection', taskId: null, poolVersion: 43, key: new Float32Array([0, 0, 1, 0]) });
    expect(parent!.archive.size()).toBe(2);
    expect(parent!.persona).toBe('You are agent-01.');
    expect((w.model as RecordingModel).prompts()[0]).toContain('Clone the agent below');
    expect(log.events[0]).toMatchObject({ type: 'agent.spawned', origin: 'fork', reason: 'agent-01 dominates algebra' });
  });

  it('merge asks the supervisor to merge the pair and records the retirement with its successor', async () => {
    const { supervisor, sent, log } = pool();
    const agents = await mergeOperator.apply(applyContext(supervisor, log), { operator: 'merge', keep: 'agent-01', retire: 'agent-03', reason: 'near-identical' });
    expect(agents).toEqual(['agent-01', 'agent-03']);
    expect(sent).toEqual([{ type: 'MERGE_AGENTS', keep: 'agent-01', retire: 'agent-03' }]);
    expect(log.events).toEqual([{ type: 'agent.retired', agentId: 'agent-03', reason: 'near-identical', successor: 'agent-01', window: 3, poolVersion: 42 }]);
  });

  it('prune asks the supervisor to retire the agent, with no successor', async () => {
    const { supervisor, sent, log } = pool();
    const agents = await pruneOperator.apply(applyContext(supervisor, log), { operator: 'prune', agent: 'agent-02', reason: 'lags the pool' });
    expect(agents).toEqual(['agent-02']);
    expect(sent).toEqual([{ type: 'RETIRE_AGENT', id: 'agent-02' }]);
    expect(log.events).toEqual([{ type: 'agent.retired', agentId: 'agent-02', reason: 'lags the pool', successor: null, window: 3, poolVersion: 42 }]);
  });

  it('specialize writes a persona aimed at the niche and asks the supervisor to set it', async () => {
    const { supervisor, sent, log } = pool();
    const w = applyContext(supervisor, log);
    const agents = await specializeOperator.apply(w, { operator: 'specialize', agent: 'agent-03', niche: 'arithmetic', reason: 'strongest on arithmetic' });
    expect(agents).toEqual(['agent-03']);
    expect(sent).toEqual([{ type: 'SET_PERSONA', id: 'agent-03', persona: NEW_PERSONA }]);
    expect(log.events).toEqual([{ type: 'agent.persona', agentId: 'agent-03', persona: NEW_PERSONA, reason: 'strongest on arithmetic', niche: 'arithmetic', window: 3, poolVersion: 42 }]);
    expect((w.model as RecordingModel).prompts()[0]).toContain(specs.get('arithmetic')!.title);
  });

  it('keeps the current persona when the model reply is unusable', async () => {
    const { supervisor, sent, log } = pool();
    await specializeOperator.apply(applyContext(supervisor, log, new RecordingModel('no idea')), { operator: 'specialize', agent: 'agent-03', niche: 'arithmetic', reason: 'r' });
    expect(sent).toEqual([{ type: 'SET_PERSONA', id: 'agent-03', persona: 'You are agent-03.' }]);
  });
});

describe('a lifecycle window', () => {
  /** Five agents after 20 tasks on one niche: agents 1–4 always right (near-identical profiles), agent 5 always wrong. */
  function trainedPool() {
    const { supervisor, sent } = supervisorWithDoubles();
    for (let i = 1; i <= 5; i++) {
      supervisor.send({ type: 'SPAWN_AGENT', input: { id: `agent-0${i}`, persona: `You are agent-0${i}.`, dim, eta: 0.2, c0: 0.5, origin: { kind: 'seed', parents: [], poolVersion: 0 } } });
    }
    for (let t = 0; t < 20; t++) {
      supervisor.send({
        type: 'APPLY_UPDATE',
        update: { taskId: `t${t}`, experiences: [], observations: [1, 2, 3, 4, 5].map((i) => ({ agentId: `agent-0${i}`, niche: 'algebra', reward: i === 5 ? 0 : 1 })) },
      });
    }
    return { supervisor, sent, log: recordingLog(), lineage: emptyLineage() };
  }

  const windowInput = (p: ReturnType<typeof trainedPool>, config = DEFAULT_LIFECYCLE) => ({
    supervisor: p.supervisor, model: new RecordingModel(JSON.stringify({ persona: NEW_PERSONA })), log: p.log, config, teamSize: 3, operators: true,
    window: 1, tasksSeen: 20, nichesSeen: ['algebra'], recentNiches: { algebra: 20 }, specs, c0: 0.5, eta: 0.2,
    tracker: new StabilityTracker(2), lineage: p.lineage, nextAgent: 6, rng: createRng('window'),
  });

  it('plans on the live roster, applies through the operators, counts lineage and bumps the version once', async () => {
    const p = trainedPool();
    const next = await runLifecycleWindow(windowInput(p));
    // Prune runs first and takes the roster to its floor (team of 3 + 1), so merge, shown the
    // roster without the pruned agent, has no room for the near-identical pair.
    expect(p.sent).toEqual([{ type: 'RETIRE_AGENT', id: 'agent-05' }, { type: 'BUMP_VERSION' }]);
    expect(p.lineage).toEqual({ genesis: 0, fork: 0, merge: 0, prune: 1, specialize: 0 });
    expect(Object.keys(p.lineage)).toEqual(['genesis', 'fork', 'merge', 'prune', 'specialize']);
    expect(next).toBe(6);
    const decisions = p.log.events.filter((e) => e.type === 'lifecycle.decision');
    expect(decisions).toHaveLength(1);
    expect(decisions[0]).toMatchObject({ window: 1, operator: 'prune', agents: ['agent-05'], poolVersion: 21 });
    expect(decisions[0]!.reason).toMatch(/^agent-05 scored 0 over its last 20 tasks, 0\.8 below what the 5 judged agents scored/);
    expect(p.log.events.find((e) => e.type === 'agent.retired')).toMatchObject({ agentId: 'agent-05', successor: null, reason: decisions[0]!.reason });
  });

  it('merges the closest pair, keeping the earlier agent, when prune is switched off', async () => {
    const p = trainedPool();
    await runLifecycleWindow(windowInput(p, { ...DEFAULT_LIFECYCLE, prune: { ...DEFAULT_LIFECYCLE.prune, enabled: false } }));
    expect(p.sent).toEqual([{ type: 'MERGE_AGENTS', keep: 'agent-01', retire: 'agent-02' }, { type: 'BUMP_VERSION' }]);
    expect(p.lineage).toMatchObject({ merge: 1, prune: 0 });
    const decision = p.log.events.find((e) => e.type === 'lifecycle.decision')!;
    expect(decision).toMatchObject({ operator: 'merge', agents: ['agent-01', 'agent-02'] });
    expect(decision.reason).toMatch(/^agent-01 and agent-02 have near-identical competence profiles over 1 niches/);
  });

  it('only records specialists when the preset runs no lifecycle', async () => {
    const { supervisor, sent } = supervisorWithDoubles();
    const log = recordingLog();
    const lineage = emptyLineage();
    await runLifecycleWindow({
      supervisor, model: new RecordingModel('{}'), log, config: DEFAULT_LIFECYCLE, teamSize: 3, operators: false,
      window: 1, tasksSeen: 0, nichesSeen: [], recentNiches: {}, specs, c0: 0.5, eta: 0.2,
      tracker: new StabilityTracker(2), lineage, nextAgent: 1, rng: createRng('window'),
    });
    expect(sent).toEqual([]);
    expect(log.events.map((e) => e.type)).toEqual(['lifecycle.window']);
    expect(Object.values(lineage).every((n) => n === 0)).toBe(true);
  });
});
