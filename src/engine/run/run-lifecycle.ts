import { embedderOption } from './embedder-choice';
import path from 'node:path';
import { createActor } from 'xstate';
import type { Clock } from '../../core/clock';
import { createRng } from '../../core/rng';
import type { loadPersonaTemplate } from '../../individual/persona-template';
import type { MissingCall } from '../../llm/request-journal';
import { emptyLineage } from '../../population/lifecycle';
import { StabilityTracker } from '../../population/specialization';
import { supervisorMachine } from '../../population/supervisor-machine';
import { sendToSupervisor, supervisorFailure } from '../../population/supervisor-ops';
import { EventLog } from '../../store/event-log';
import { EVENTS_FILE, type EventOf } from '../../store/events';
import type { RunLock } from '../../store/run-lock';
import type { RunFile, RunStatus, RunStore } from '../../store/run-store';
import type { Niche } from '../../tasks/niche';
import { repeatedRowNotices, taskStream } from '../../tasks/stream';
import type { StructureRegistry } from '../../team/structures';
import { runEngine, type EngineOptions, type EngineResult, type Progress } from '../loop/engine';
import { modelPlugins, type BackendModel } from '../scenario/model-plugins';
import { buildModelStack, presentedTasks } from './model-stack';
import type { getPreset } from '../scenario/presets';
import { finalSummary } from './run-summary';
import type { RunOptions, RunResult } from './run-options';
import type { LoadedScenario } from '../scenario/scenario';
import { SummaryBuilder } from '../loop/summary';
import { BudgetMeter } from '../loop/budget';
import { MetaHarness } from '../meta/meta-harness';
import { DEFAULT_META } from '../scenario/meta-config';

/** Everything a run in its directory needs, built and checked by `executeRun`. */
export interface RunContext {
  readonly loaded: LoadedScenario;
  readonly preset: ReturnType<typeof getPreset>;
  readonly structures: StructureRegistry;
  readonly clock: Clock;
  readonly persona: ReturnType<typeof loadPersonaTemplate>;
  readonly niches: ReadonlyMap<string, Niche>;
  readonly backend: BackendModel;
  readonly store: RunStore;
  readonly lock: RunLock;
  readonly runDir: string;
  readonly opts: RunOptions;
  readonly resumed: boolean;
  readonly replaySource: string | undefined;
}

/** The run's model stack and event log, and the replay's missing calls (a replay stops at the first). */
interface RunIo {
  readonly stack: ReturnType<typeof buildModelStack>;
  readonly log: EventLog;
  readonly missing: MissingCall[];
  readonly replayStop: AbortController;
}

/** Build the model stack and open the event log (resuming: checking the re-made events against it). */
function openRunIo(c: RunContext): RunIo {
  const { scenario } = c.loaded;
  const { backend, clock } = c;
  const missing: MissingCall[] = [];
  const replayStop = new AbortController();
  const stack = buildModelStack({
    backend, runDir: c.runDir, resumed: c.resumed, clock, replaySource: c.replaySource, prices: scenario.prices,
    sampling: scenario.model, ...embedderOption(scenario, c.opts.onNotice), journal: c.opts.journal,
    onMissing: (m) => { missing.push(m); replayStop.abort(); },
  });
  // Every commit is written at once, so a killed process loses nothing. fsync also guards against
  // a power loss; when calls are free to redo (the in-process simulator) it is skipped.
  const log = new EventLog(path.join(c.runDir, EVENTS_FILE), {
    fsync: !backend.freeCalls, clock, redact: backend.redact, resume: c.resumed ? { resumed: { at: clock.isoNow() } } : undefined,
    write: c.opts.logEvents ? new Set(c.opts.logEvents) : undefined,
  });
  return { stack, log, missing, replayStop };
}

/** The run's stop (the caller's, or a replay's missing call) and the cut that ends the grace period after it. */
function stopWithGrace(opts: RunOptions, replayStop: AbortController) {
  const stop = AbortSignal.any([opts.stop, replayStop.signal].filter((s): s is AbortSignal => s !== undefined));
  const cutCtl = new AbortController();
  let graceTimer: ReturnType<typeof setTimeout> | undefined;
  const onStop = () => { graceTimer = setTimeout(() => cutCtl.abort(), opts.graceMs ?? 60_000); };
  if (stop.aborted) onStop();
  else stop.addEventListener('abort', onStop, { once: true });
  const dispose = () => {
    clearTimeout(graceTimer);
    stop.removeEventListener('abort', onStop);
  };
  return { stop, cut: cutCtl.signal, dispose };
}

/** How a run ends: `finish` records its status once; a second Ctrl-C (abandon) records it synchronously. */
function runEnding(c: RunContext, io: RunIo) {
  const { journal } = io.stack;
  const { log } = io;
  let finished = false;
  /** End the run: close the journal, write its last event, close the log, record the status. Once. */
  const finish = (status: Exclude<RunStatus, 'running'>, event: EventOf<'run.finished' | 'run.interrupted' | 'run.budget' | 'run.failed'>, record: Partial<RunFile>): Promise<void> => {
    finished = true;
    journal.close();
    // run.finished is part of the re-checked log; the others mark where a run stopped.
    if (status === 'finished') log.append(event);
    else log.appendControl(event);
    log.close();
    return c.store.update({ status, ...record });
  };
  c.opts.onAbandonable?.(() => {
    // A second Ctrl-C: the caller exits right after, so record it synchronously; the run stays resumable.
    if (finished) return;
    finished = true;
    journal.close();
    log.appendControl({ type: 'run.interrupted', reason: 'abandoned' });
    c.store.updateSync({ status: 'interrupted', interruptReason: 'abandoned' });
    c.lock.release();
  });
  return { finish, isFinished: () => finished };
}

/** The supervisor actor, started, for embeddings of `dim` dimensions. */
function startSupervisor(scenario: LoadedScenario['scenario'], dim: number) {
  const supervisor = createActor(supervisorMachine, {
    input: {
      dim, synergyEta: scenario.team.synergyEta, synergy0: scenario.team.synergy0,
      // memory.capacity, a model of forgetting, narrows the archive's memory bound.
      bounds: { ...scenario.bounds, archiveBucket: Math.min(scenario.bounds.archiveBucket, scenario.memory.capacity ?? Infinity) },
    },
  });
  // Without an error observer xstate rethrows an actor's failure from a timer, crashing the process
  // with run.json left `running`. Senders read the failure from the snapshot instead
  // (sendToSupervisor, supervisorFailure) and it fails the run below: run.failed, status failed.
  supervisor.subscribe({ error: () => {} });
  supervisor.start();
  return supervisor;
}

type Supervisor = ReturnType<typeof startSupervisor>;

/** The run's first events: its start, skipped dataset rows, and the seed agents spawned. Returns how many. */
function seedRun(c: RunContext, log: EventLog, supervisor: Supervisor, dim: number): number {
  const { scenario } = c.loaded;
  log.append({ type: 'run.started', scenario: scenario.name, variant: scenario.variant, seed: scenario.seed, tasks: scenario.stream.tasks });
  for (const [id, n] of c.niches) {
    if (n.skippedRows) log.append({ type: 'dataset.rows-skipped', niche: id, skipped: n.skippedRows });
  }
  for (const line of repeatedRowNotices({ ...scenario.stream, entries: scenario.stream.niches, niches: c.niches })) c.opts.onNotice?.(line);
  const count = c.preset.pool === 'one' ? 1 : scenario.agents.count;
  for (let i = 0; i < count; i++) {
    const id = `agent-${String(i + 1).padStart(2, '0')}`;
    sendToSupervisor(supervisor, {
      type: 'SPAWN_AGENT',
      input: {
        id, persona: c.persona.persona, dim, eta: scenario.memory.eta, c0: scenario.memory.c0, origin: { kind: 'seed', parents: [], poolVersion: 0 },
      },
    });
    log.append({ type: 'agent.spawned', agentId: id, origin: 'seed', persona: c.persona.persona });
  }
  log.commit();
  // A resume says where it is at once: the replay of a long log takes a while before its first commit.
  if (log.priorCommitted > 0) c.opts.onProgress?.({ done: 0, total: scenario.stream.tasks, accuracy: 0, logged: log.priorCommitted });
  return count;
}

/** What the engine loop is handed: the scenario's stream and settings, the run's state and its stops. */
function engineOptions(c: RunContext, io: RunIo, supervisor: Supervisor, seeded: number, stops: { stop: AbortSignal; cut: AbortSignal }, meta: MetaHarness | undefined): EngineOptions {
  const { scenario } = c.loaded;
  const { backend, niches, opts } = c;
  const { stack, log } = io;
  return {
    scenario, preset: c.preset, model: stack.model, usage: stack.model, niches, supervisor, log,
    summary: new SummaryBuilder(scenario.stream.niches.map((n) => n.id), scenario.engine.staleness),
    observer: backend.observer,
    tasks: presentedTasks(taskStream({ ...scenario.stream, entries: scenario.stream.niches, niches, seed: scenario.seed }), scenario, modelPlugins(opts.plugins)),
    total: scenario.stream.tasks,
    rng: createRng(`${scenario.seed}/engine`),
    onProgress: withLogged(opts.onProgress, log.priorCommitted),
    tracker: new StabilityTracker(scenario.population.lifecycle.specialist.stableWindows), lineage: emptyLineage(), firstNewAgent: seeded + 1,
    // Journal answers before events: a committed task's calls are never asked again.
    checkpoint: () => { stack.journal.sync(); log.commit(); },
    stop: stops.stop, cut: stops.cut,
    health: backend.health,
    outageTimeoutMs: scenario.model.backend === 'openai' ? scenario.model.outageTimeoutMs : undefined,
    clock: c.clock, structures: c.structures,
    // A zero-time model (the in-process simulator, or a replay of its run) has every evolve outcome
    // ready at once. Virtual time predicts a run against a real server, so it applies them as such a run does.
    evolveTiming: backend.zeroTime ? 'instant' : scenario.engine.evolveTiming,
    runClock: stack.runClock,
    generatedTokens: stack.generatedTokens,
    budget: scenario.budget ? new BudgetMeter(scenario.budget) : undefined,
    meta,
  };
}

/**
 * The run's end from the loop's outcome: the summary, then `finish` with the status the outcome
 * says (budget, interrupted, finished), and after a finished run the after-run hook (the report).
 */
async function endRun(c: RunContext, io: RunIo, supervisor: Supervisor, eo: EngineOptions, outcome: EngineResult, t0: number, finish: ReturnType<typeof runEnding>['finish']): Promise<RunResult> {
  const { scenario } = c.loaded;
  const { runDir, clock } = c;
  const failure = supervisorFailure(supervisor);
  if (failure) throw failure;
  const { missing } = io;
  if (missing.length > 0) {
    const names = missing.slice(0, 5).map((m) => m.what).join('; ');
    throw new Error(`replay: ${missing.length} call${missing.length === 1 ? ' is' : 's are'} not in ${c.replaySource}: ${names}${missing.length > 5 ? '; …' : ''}`);
  }
  const result = finalSummary({
    scenario, backend: c.backend, stack: io.stack, supervisor, summary: eo.summary, tracker: eo.tracker, lineage: eo.lineage, outcome, runDir,
    wallSeconds: (clock.now() - t0) / 1000, meta: eo.meta?.tally,
  });
  // A resume stopped during its replay committed fewer tasks than its log holds: run.json and the
  // control event say what the log holds, and the summary of the replayed part replaces no fuller one.
  const committed = Math.max(outcome.committed, io.log.priorCommitted);
  const inReplay = committed > outcome.committed;
  const progress = { committed, total: scenario.stream.tasks };
  const asRecord = inReplay ? c.store.data.summary : result as unknown as Record<string, unknown>;
  if (outcome.reason === 'budget') {
    const b = outcome.budget!;
    await finish('budget', { type: 'run.budget', ...b, committed, total: scenario.stream.tasks }, { interruptReason: `budget (${b.limit})`, budgetStop: b, progress, summary: asRecord });
    return { summary: result, runDir, interrupted: true, budget: b, committed };
  }
  if (outcome.interrupted) {
    const reason = outcome.reason === 'outage' ? 'endpoint outage' : 'stop requested';
    await finish('interrupted', { type: 'run.interrupted', reason, committed, total: scenario.stream.tasks }, { interruptReason: reason, progress, summary: asRecord });
    return { summary: result, runDir, interrupted: true, committed };
  }
  await finish('finished', { type: 'run.finished', accuracy: result.accuracy, tasks: result.tasks }, { progress, summary: asRecord });
  const reportPath = c.opts.afterRun ? await c.opts.afterRun(runDir, clock) : undefined;
  if (reportPath) {
    result.reportPath = reportPath;
    await c.store.update({ summary: result as unknown as Record<string, unknown> });
  }
  return { summary: result, runDir };
}

/**
 * One run in its directory, from the first event to its end: the model stack, the event log, the
 * supervisor and its seed agents, the engine loop, and the summary. However it ends — finished,
 * interrupted (a stop, an outage), failed, or abandoned by a second Ctrl-C — it ends through one
 * `finish`, which closes the journal and the log and records the status once.
 */
export async function runInDir(c: RunContext): Promise<RunResult> {
  const { scenario } = c.loaded;
  const io = openRunIo(c);
  const stops = stopWithGrace(c.opts, io.replayStop);
  const { finish, isFinished } = runEnding(c, io);
  const { model } = io.stack;
  const dim = (await model.embed(['dimension probe']))[0]!.length;
  const supervisor = startSupervisor(scenario, dim);
  const t0 = c.clock.now();
  // Meta-editing: the harness stamps every event with the procedure version from the first on.
  const meta = c.preset.meta
    ? new MetaHarness({ loaded: c.loaded, preset: c.preset, structures: c.structures, config: scenario.meta ?? DEFAULT_META, mode: c.preset.meta, model, log: io.log })
    : undefined;
  if (meta) io.log.subscribe((e) => meta.observe(e));
  try {
    const seeded = seedRun(c, io.log, supervisor, dim);
    const eo = engineOptions(c, io, supervisor, seeded, stops, meta);
    const outcome = await runEngine(eo);
    return await endRun(c, io, supervisor, eo, outcome, t0, finish);
  } catch (err) {
    const error = String((err as Error)?.message ?? err);
    if (!isFinished()) await finish('failed', { type: 'run.failed', error }, { error });
    throw err;
  } finally {
    stops.dispose();
    supervisor.stop();
  }
}

/** Progress with the tasks a resumed run's log held, so a reporter can tell the replay from new work. */
function withLogged(onProgress: ((p: Progress) => void) | undefined, logged: number): ((p: Progress) => void) | undefined {
  if (!onProgress || logged === 0) return onProgress;
  return (p) => onProgress({ ...p, logged });
}
