import type { LanguageModel } from '../../llm/model';
import type { AccountingModel } from '../../llm/token-accounting';
import type { Supervisor } from '../../population/supervisor-ops';
import type { EventLog } from '../../store/event-log';
import type { Niche } from '../../tasks/niche';
import type { Task } from '../../tasks/task';
import { applyEvolve, commitTask, prepareEvolve, type CommitDeps, type PreparedEvolve } from './commit';
import { evolveGap } from './evolve-stage';
import { stalenessJudge } from './staleness-judge';
import { EvolveScheduler } from './evolve-scheduler';
import { LifecycleClock } from './lifecycle-clock';
import { deriveLoopSettings, type EvolveTiming, type LoopSettings } from './loop-settings';
import { startGate, type StartGateInputs } from './start-gate';
import { TaskLauncher } from './task-launcher';
import { AdaptiveConcurrency } from './concurrency/adaptive';
import { concurrencyEvent, recordedChanges } from './concurrency/concurrency-event';
import { ReplayedConcurrency, type ConcurrencyController } from './concurrency/replayed';
import { autoConfigOf, autoGapBound } from '../scenario/auto-config';
import type { LifecycleOperatorName } from '../../population/lifecycle';
import type { StabilityTracker } from '../../population/specialization';
import { ASSEMBLERS } from '../scenario/presets';
import type { Preset } from '../scenario/presets';
import type { Clock } from '../../core/clock';
import type { Rng } from '../../core/rng';
import type { InFlight, Scenario } from '../scenario/scenario-schema';
import type { StructureRegistry } from '../../team/structures';
import type { SummaryBuilder } from './summary';
import type { TaskObserver } from '../scenario/task-observer';
import type { ModelHealth } from '../scenario/model-plugins';
import type { BudgetMeter, BudgetStop } from './budget';
import type { MetaHarness } from '../meta/meta-harness';
import { StructureCooldown } from '../../team/structure-cooldown';
import { Interrupt } from '../../core/interrupt';

/** Progress after each committed task. */
export interface Progress {
  readonly done: number;
  readonly total: number;
  /** Mean reward so far. */
  readonly accuracy: number;
  /** Set while no endpoint is healthy and no task starts ("waiting for endpoints"). */
  readonly waiting?: boolean;
  /** A resume: the tasks its log held committed; while `done` is below it, the run re-checks them (replay). */
  readonly logged?: number;
}

/** How the engine loop ended: the whole stream committed, or stopped early (resumable). */
export interface EngineResult {
  readonly interrupted: boolean;
  /** Why it stopped early: `stop` (a stop request), `outage` (no endpoint came back in time) or `budget` (spent). */
  readonly reason?: 'stop' | 'outage' | 'budget';
  /** With reason `budget`: the limit that stopped it. */
  readonly budget?: BudgetStop;
  readonly committed: number;
}


/** What the engine loop needs. */
export interface EngineOptions {
  readonly scenario: Scenario;
  readonly preset: Preset;
  readonly model: LanguageModel;
  /** Per-task and per-stage token counts of `model`'s calls, so each task's events carry its cost. */
  readonly usage?: Pick<AccountingModel, 'takeTask' | 'stage'>;
  readonly niches: ReadonlyMap<string, Niche>;
  readonly tasks: Iterable<Task>;
  readonly total: number;
  readonly supervisor: Supervisor;
  readonly log: EventLog;
  readonly rng: Rng;
  readonly summary: SummaryBuilder;
  /** Told when each task starts and ends (a backend that must know the task behind its requests listens here). */
  readonly observer?: TaskObserver;
  readonly onProgress?: (p: Progress) => void;
  /** Specialist history across lifecycle windows. */
  readonly tracker: StabilityTracker;
  /** Lifecycle decisions applied, by operator. */
  readonly lineage: Record<LifecycleOperatorName, number>;
  /** Number of the next agent to spawn (agent-NN). */
  readonly firstNewAgent: number;
  /** Called after each commit group (a task and the lifecycle window after it): makes it durable. */
  readonly checkpoint?: () => void;
  /** Aborted: start no more tasks; those in flight finish and commit. */
  readonly stop?: AbortSignal;
  /** Aborted: stop at once; tasks in flight are abandoned uncommitted (a resume re-runs them). */
  readonly cut?: AbortSignal;
  /** Endpoint health: no task starts while none is available, for at most `outageTimeoutMs`. */
  readonly health?: ModelHealth;
  readonly outageTimeoutMs?: number;
  /** Measures how long an outage lasts (default: the system clock). */
  readonly clock?: Clock;
  /** The structures tasks may use (default: the built-in ones). */
  readonly structures?: StructureRegistry;
  /**
   * When evolve outcomes are applied, so that the run stays reproducible on each kind of backend:
   * - `instant` (the in-process simulator without `--latency`, which answers in zero time): every
   *   outcome is ready at once, so the engine waits for it at the next commit, start or lifecycle
   *   window, whatever real I/O (graders) does;
   * - `lag` (default, `engine.evolveTiming`): the outcome of task i is applied just before the solve
   *   commit of task i + inFlight, waiting for it if needed and never earlier, so a resumed run
   *   re-executes the same order whatever the servers' timing;
   * - `when-ready`: each is applied as soon as it is ready; in virtual time readiness is measured on
   *   the discrete-event clock, so it is the same on every run; on real servers it is not.
   */
  readonly evolveTiming?: EvolveTiming;
  /** The run's clock in seconds, for `inFlight: "auto"` (virtual time under `--latency`, else wall time). */
  readonly runClock?: () => number;
  /** Completion tokens generated so far (the adaptive controller's throughput measure). */
  readonly generatedTokens?: () => number;
  /** Meta-editing between segments (AEVO): the harness that cuts segments and edits the procedure. */
  readonly meta?: MetaHarness;
  /**
   * The run's budget: before each task starts, committed work plus the estimated cost of the work
   * in flight and of the new task must stay within it; once it would not, no task starts (those in
   * flight finish and commit, as after a stop request) and the run ends with reason `budget`.
   */
  readonly budget?: BudgetMeter;
}


/**
 * Runs the stream in two stages. The solve stage runs up to `engine.inFlight` tasks at once
 * (assemble → choose → execute → grade); task i starts once task i − inFlight has committed, and
 * solve outcomes commit strictly in stream order (competence, synergy, the LeadLearn outcome).
 * Each commit queues the task's evolve stage (reflection, the leader's note, CoDream), which runs
 * off the critical path (evolve-pipeline.ts) and is applied in task order at a point `evolveTiming`
 * defines, after the staleness policy judged it. With inFlight = 1 this is the paper's sequential
 * loop: each task's evolve stage is applied before the next task starts. With `inFlight: "auto"`
 * the adaptive controller (concurrency/) sizes the solve window and the evolve workers. Under the simulated model the pool state a task sees, the event log and
 * the summary are the same on every run with the same seed, whatever order model calls or sandboxed
 * graders finish in.
 */
export async function runEngine(o: EngineOptions): Promise<EngineResult> {
  // One interruption for the run: a cut (`o.cut`) or an outage that lasted too long. Every wait of
  // the loop races against it, and each race is released when its work settles, so nothing a
  // finished task produced is kept alive by a wait that never ends.
  const interrupt = new Interrupt<'cut' | 'outage'>();
  const unfollow = interrupt.follow(o.cut, 'cut');
  const outageWatch = watchOutage(o, interrupt);
  try {
    return await runLoop(o, interrupt, outageWatch);
  } finally {
    outageWatch.stop();
    unfollow();
  }
}

/**
 * The solve–evolve loop (docs/architecture.md, "The path of one task"): start tasks while the gate allows, commit each in stream order,
 * queue its evolve stage, run a lifecycle window when one is due, and let the meta-editor change the
 * procedure at a segment's end (the loop's settings are then derived again).
 */
async function runLoop(o: EngineOptions, interrupt: Interrupt<'cut' | 'outage'>, outageWatch: OutageWatch): Promise<EngineResult> {
  const timing = o.evolveTiming ?? 'lag';
  let scenario = o.meta?.current.scenario ?? o.scenario;
  let settings = deriveLoopSettings(scenario, o.preset, timing);
  const runNow = o.runClock ?? (() => performance.now() / 1000);
  const ctrl = concurrencyOf(o, scenario.engine.inFlight, runNow);
  const observeCommit = ctrl && commitObserver(o, ctrl, runNow);
  const solveLimit = () => (ctrl ? ctrl.limit('solve') : settings.window);
  const cooldown = new StructureCooldown(scenario.team.cooldown);
  const tasks = new TaskLauncher({ ...o, nicheKeys: await nicheKeysOf(o), cooldown, onStarted: () => ctrl?.started('solve', runNow()) });
  const commitDeps = () => commitDepsOf(o, cooldown, settings);
  const stale = stalenessJudge({ config: () => scenario.engine.staleness, supervisor: o.supervisor, model: o.model, summary: o.summary });
  const evolve = evolveSchedulerOf(o, timing, ctrl, runNow, commitDeps, stale);
  const life = lifecycleClockOf(o);
  const st: LoopState = { committed: 0, outage: false, budgetStop: null };
  /** Wait for evolve outcomes to be applied, unless the run is cut or an outage lasts too long first; true when it may go on. */
  const evolved = async (wait: Promise<void>): Promise<boolean> => {
    const r = await interrupt.race(wait.then(() => 'ok' as const));
    if (r === 'outage') st.outage = true;
    return r === 'ok';
  };
  const gate = () => startGate(gateInputs(o, tasks, st, solveLimit()));
  for (;;) {
    evolve.check();
    let wait = o.cut?.aborted ? undefined : evolve.beforeStarts(settings.settleAtSync);
    if (wait && !(await evolved(wait))) break;
    for (let v = gate(); ; v = gate()) {
      if (v.ok) tasks.start(scenario);
      // No endpoint is healthy: start nothing until one is back (the pool keeps probing).
      else if (v.reason === 'no-endpoint') st.outage = (await interrupt.race(outageWatch.pause())) === 'outage';
      else { st.budgetStop ??= v.budget ?? null; break; }
    }
    if (st.outage || o.cut?.aborted) break;
    const pending = tasks.outcome(st.committed);
    if (!pending) break;
    const outcome = await interrupt.race(pending);
    if (outcome === 'cut') break;
    if (outcome === 'outage') { st.outage = true; break; }
    tasks.taken(st.committed);
    wait = evolve.beforeCommit(st.committed, solveLimit());
    if (wait && !(await evolved(wait))) break;
    const changes = commitTask(commitDeps(), outcome);
    o.budget?.taskCommitted();
    observeCommit?.();
    evolve.enqueue(outcome, changes.poolVersion);
    st.committed++;
    // Each change of the window or the evolve workers is an event of this commit group.
    for (const c of ctrl?.tick(runNow()) ?? []) o.log.append(concurrencyEvent(c));
    if (ctrl) evolve.pump();
    life.tick(outcome.deps.task.niche);
    // Lifecycle runs between commits: tasks already in flight keep their snapshots, later ones see the new roster.
    if (life.due(settings.life)) {
      wait = evolve.beforeStarts(settings.settleAtSync);
      if (wait && !(await evolved(wait))) break;
      await life.window(settings.life, o.preset.lifecycle && o.preset.pool === 'scenario');
    }
    // A segment's end (meta-editing): quiescent, every evolve outcome applied, then the harness reports
    // the segment and the meta-editor may change the procedure the next tasks start under.
    if (o.meta?.atBoundary(st.committed, tasks.started) && st.committed < o.total) {
      if (!(await evolved(evolve.settle()))) break;
      const next = (await o.meta.boundary(st.committed)).scenario;
      o.budget?.add(o.meta.lastCost);
      if (next !== scenario) [scenario, settings] = [next, deriveLoopSettings(next, o.preset, timing)];
    }
    o.checkpoint?.();
    o.onProgress?.({ ...o.summary.progress(), total: o.total });
    // The in-process simulator answers in microtasks only: let signals, timers and I/O in between tasks.
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  // Evolve outcomes of committed tasks are applied before the run stops; a cut or an outage
  // abandons them (a resume re-runs them), and a cut during this wait still stops at once.
  if (!st.outage && !o.cut?.aborted) await evolved(evolve.settle());
  const end = endOf(o, st, tasks);
  // Record where specialization ended even when the stream stops mid-window.
  if (!end.interrupted && life.partial(settings.life)) await life.window(settings.life, false);
  return end;
}

/** The loop's counters and stop flags, which the start gate reads. */
interface LoopState {
  committed: number;
  /** No endpoint came back in time. */
  outage: boolean;
  /** The budget stopped starts: the limit the next task would have passed. */
  budgetStop: BudgetStop | null;
}

/** What the start gate looks at now. */
function gateInputs(o: EngineOptions, tasks: TaskLauncher, st: LoopState, limit: number): StartGateInputs {
  return {
    exhausted: tasks.exhausted, inFlight: tasks.started - st.committed, limit, stopped: o.stop?.aborted ?? false,
    cut: o.cut?.aborted ?? false, outage: st.outage, spent: st.budgetStop !== null,
    // A resumed run re-executing its log starts a task only where the log did: a run stopped
    // gracefully let its tasks in flight commit without starting new ones.
    replayAllows: () => { const next = o.log.nextReplayType; return next === undefined || next === 'task.started' || tasks.inFlight === 0; },
    segmentAllows: () => o.meta?.mayStart(tasks.started) ?? true,
    endpointsUp: () => !o.health || o.health.available(),
    budget: () => o.budget?.checkStart(tasks.started - st.committed) ?? null,
  };
}

/** How the loop ended: interrupted (an outage, a cut, a stop before the stream ended, a spent budget) or not. */
function endOf(o: EngineOptions, st: LoopState, tasks: TaskLauncher): EngineResult {
  const { committed } = st;
  if (st.outage || o.cut?.aborted || (o.stop?.aborted && ((!tasks.exhausted && committed < o.total) || committed < tasks.started))) {
    return { interrupted: true, reason: st.outage ? 'outage' : 'stop', committed };
  }
  if (st.budgetStop && committed < o.total) return { interrupted: true, reason: 'budget', budget: st.budgetStop, committed };
  return { interrupted: false, committed };
}

/** The run's evolve scheduler: outcomes judged by the staleness policy, applied to the pool through `commitDeps()` (the latest). */
function evolveSchedulerOf(
  o: EngineOptions, timing: EvolveTiming, ctrl: ConcurrencyController | null, runNow: () => number,
  commitDeps: () => CommitDeps, stale: ReturnType<typeof stalenessJudge>,
): EvolveScheduler<PreparedEvolve> {
  return new EvolveScheduler<PreparedEvolve>({
    timing, judge: (evo) => prepareEvolve(commitDeps(), evo, stale.judge),
    observe: (evo) => ctrl?.gapObserved(evolveGap(evo, o.supervisor.getSnapshot().context.poolVersion + 1)),
    apply: (evo, judged) => { const changes = applyEvolve(commitDeps(), evo, judged); if (changes) stale.record(changes); },
    limit: () => (ctrl ? ctrl.limit('evolve') : Number.MAX_SAFE_INTEGER),
    onStarted: () => ctrl?.started('evolve', runNow()), onProduced: () => ctrl?.produced('evolve', runNow()),
  });
}

/**
 * `inFlight: "auto"`: the adaptive controller sizes the solve window and the evolve workers; a
 * resumed run first replays the decisions its log holds (they followed the first run's clock).
 */
function concurrencyOf(o: EngineOptions, inFlight: InFlight, runNow: () => number): ConcurrencyController | null {
  if (inFlight !== 'auto') return null;
  const cfg = autoConfigOf(o.scenario.engine);
  const tau = autoGapBound(o.scenario.engine);
  return o.log.isReplaying
    ? new ReplayedConcurrency(recordedChanges(o.log.priorEvents()), cfg, tau, () => o.log.isReplaying)
    : new AdaptiveConcurrency(cfg, tau, runNow());
}

/** What the controller learns at each commit: the solve produced, an evolve job queued, the tokens generated since the last one. */
function commitObserver(o: EngineOptions, ctrl: ConcurrencyController, runNow: () => number): () => void {
  let tokensSeen = o.generatedTokens?.() ?? 0;
  return () => {
    const t = runNow();
    ctrl.enqueued('evolve', t);
    ctrl.produced('solve', t);
    const tokens = o.generatedTokens?.() ?? 0;
    ctrl.work(tokens - tokensSeen, t);
    tokensSeen = tokens;
  };
}

/** Niche ids never change, so their embeddings (LeadLearn's key) are computed once, not per task. */
async function nicheKeysOf(o: EngineOptions): Promise<Map<string, Float32Array>> {
  const ids = [...o.niches.keys()];
  const embedded = await o.model.embed(ids);
  return new Map(ids.map((id, i) => [id, embedded[i]!]));
}

/** What a commit needs; failures that repeat set a structure aside on a niche (`cooldown`, read when a task starts). */
function commitDepsOf(o: EngineOptions, cooldown: StructureCooldown, settings: LoopSettings): CommitDeps {
  return {
    supervisor: o.supervisor, log: o.log, summary: o.summary, c0: o.scenario.memory.c0, cooldown,
    routing: settings.routing, ...(o.observer ? { observer: o.observer } : {}),
    ...(o.usage ? { usage: o.usage } : {}),
    ...(o.budget ? { onCost: (u: Parameters<BudgetMeter['add']>[0]) => o.budget!.add(u) } : {}),
  };
}

/** The lifecycle clock of this run. */
function lifecycleClockOf(o: EngineOptions): LifecycleClock {
  return new LifecycleClock({
    supervisor: o.supervisor, model: o.model, log: o.log, teamSize: ASSEMBLERS[o.preset.assembler]!.teamSize,
    specs: new Map([...o.niches].map(([id, n]) => [id, n.spec])), c0: o.scenario.memory.c0, eta: o.scenario.memory.eta,
    tracker: o.tracker, lineage: o.lineage, firstNewAgent: o.firstNewAgent, rng: o.rng,
    ...(o.usage ? { usage: o.usage } : {}), ...(o.budget ? { budget: o.budget } : {}),
  });
}

/** How long no endpoint has been healthy, and what to do about it. */
interface OutageWatch {
  pause(): Promise<'pause'>;
  stop(): void;
}

/**
 * Watches endpoint health: while none is healthy it says "waiting for endpoints" on the progress
 * line, and fires `interrupt` with `outage` once that has lasted `outageTimeoutMs` (the run then stops
 * as interrupted, ready to resume). `pause()` resolves after a short wait, for the start loop to look again.
 */
function watchOutage(o: EngineOptions, interrupt: Interrupt<'cut' | 'outage'>): OutageWatch {
  const POLL_MS = 250;
  if (!o.health) return { pause: () => new Promise((r) => setTimeout(() => r('pause'), POLL_MS)), stop: () => {} };
  const now = () => o.clock?.now() ?? performance.now();
  let downSince: number | undefined;
  const timer = setInterval(() => {
    if (o.health!.available()) {
      if (downSince !== undefined) o.onProgress?.({ ...o.summary.progress(), total: o.total, waiting: false });
      downSince = undefined;
      return;
    }
    if (downSince === undefined) {
      downSince = now();
      o.onProgress?.({ ...o.summary.progress(), total: o.total, waiting: true });
    } else if (now() - downSince >= (o.outageTimeoutMs ?? 600_000)) {
      interrupt.fire('outage');
    }
  }, POLL_MS);
  timer.unref();
  return { pause: () => new Promise((r) => setTimeout(() => r('pause'), POLL_MS)), stop: () => clearInterval(timer) };
}
