import { createActor, toPromise } from 'xstate';
import type { LanguageModel } from '../../llm/model';
import type { AccountingModel } from '../../llm/token-accounting';
import { viewRoster } from '../../individual/agent-view';
import type { Supervisor } from '../../population/supervisor-ops';
import type { EventLog } from '../../store/event-log';
import type { Niche } from '../../tasks/niche';
import type { Task } from '../../tasks/task';
import { applyEvolve, commitTask, prepareEvolve, type CommitDeps, type PreparedEvolve } from './commit';
import { evolveGap, type EvolveOutcome } from './evolve-stage';
import { stalenessJudge } from './staleness-judge';
import { EvolvePipeline } from './evolve-pipeline';
import { AdaptiveConcurrency } from './concurrency/adaptive';
import { concurrencyEvent, recordedChanges } from './concurrency/concurrency-event';
import { ReplayedConcurrency, type ConcurrencyController } from './concurrency/replayed';
import { taskStartedEvent } from './events-from-changes';
import { autoConfigOf, autoGapBound } from '../scenario/auto-config';
import { runLifecycleWindow } from '../../population/lifecycle/lifecycle-window';
import type { LifecycleOperatorName } from '../../population/lifecycle';
import type { StabilityTracker } from '../../population/specialization';
import { ASSEMBLERS } from '../scenario/presets';
import type { Preset } from '../scenario/presets';
import type { Clock } from '../../core/clock';
import type { Rng } from '../../core/rng';
import type { Scenario } from '../scenario/scenario-schema';
import type { StructureRegistry } from '../../team/structures';
import type { SummaryBuilder } from './summary';
import { taskRunMachine, type TaskOutcome } from './task-run-machine';
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
  readonly evolveTiming?: 'instant' | 'when-ready' | 'lag';
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

async function runLoop(o: EngineOptions, interrupt: Interrupt<'cut' | 'outage'>, outageWatch: OutageWatch): Promise<EngineResult> {
  // The procedure tasks start under: the scenario's, or the meta-editor's latest version of it.
  let scenario = o.meta?.current.scenario ?? o.scenario;
  const inFlight = scenario.engine.inFlight;
  let window = typeof inFlight === 'number' ? inFlight : autoConfigOf(o.scenario.engine).initial;
  // `auto`: the adaptive controller sizes the solve window and the evolve workers; a resumed run
  // first replays the decisions its log holds (they followed the first run's clock).
  const runNow = o.runClock ?? (() => performance.now() / 1000);
  let ctrl: ConcurrencyController | null = null;
  if (inFlight === 'auto') {
    const cfg = autoConfigOf(o.scenario.engine);
    const tau = autoGapBound(o.scenario.engine);
    ctrl = o.log.isReplaying
      ? new ReplayedConcurrency(recordedChanges(o.log.priorEvents()), cfg, tau, () => o.log.isReplaying)
      : new AdaptiveConcurrency(cfg, tau, runNow());
  }
  const solveLimit = () => (ctrl ? ctrl.limit('solve') : window);
  let tokensSeen = o.generatedTokens?.() ?? 0;
  const it = o.tasks[Symbol.iterator]();
  const running = new Map<number, Promise<TaskOutcome>>();
  let started = 0;
  let committed = 0;
  let exhausted = false;

  // Niche ids never change, so their embeddings (LeadLearn's key) are computed once, not per task.
  const ids = [...o.niches.keys()];
  const embedded = await o.model.embed(ids);
  const nicheKeys = new Map(ids.map((id, i) => [id, embedded[i]!]));
  // Failures that repeat set a structure aside on a niche; read when a task starts, fed at each commit.
  const cooldown = new StructureCooldown(scenario.team.cooldown);

  const start = () => {
    const next = it.next();
    if (next.done) { exhausted = true; return; }
    const task = next.value;
    const niche = o.niches.get(task.niche)!;
    o.observer?.taskStarted(task, niche.spec);
    const sup = o.supervisor.getSnapshot().context;
    // Logged as the run starts: tasks start in stream order (task i once task i − inFlight has
    // committed), so the log stays the same on every run with the same seed.
    o.log.append(taskStartedEvent(task, sup.poolVersion));
    ctrl?.started('solve', runNow());
    const actor = createActor(taskRunMachine, {
      input: {
        model: o.model, preset: o.preset, scenario, niche, task,
        rng: o.rng.fork(`task/${task.index}`), roster: viewRoster(sup.active), poolVersion: sup.poolVersion,
        synergy: sup.synergy, bank: sup.bank, nicheKey: nicheKeys.get(task.niche)!, structures: o.structures,
        setAside: cooldown.blocked(task.niche, task.index),
      },
    });
    running.set(started, toPromise(actor));
    actor.start();
    started++;
  };

  const routingOf = () => scenario.population.codream.routing ?? (o.preset.codream === 'symmetric' ? 'symmetric' : 'asymmetric');
  let commitDeps: CommitDeps = {
    supervisor: o.supervisor, log: o.log, summary: o.summary, c0: o.scenario.memory.c0, cooldown,
    routing: routingOf(), ...(o.observer ? { observer: o.observer } : {}),
    ...(o.usage ? { usage: o.usage } : {}),
    ...(o.budget ? { onCost: (u: Parameters<BudgetMeter['add']>[0]) => o.budget!.add(u) } : {}),
  };
  let budgetStop: BudgetStop | null = null;
  const stale = stalenessJudge({ config: () => scenario.engine.staleness, supervisor: o.supervisor, model: o.model, summary: o.summary });
  const { judge } = stale;
  const timing = o.evolveTiming ?? 'lag';
  // Applied as soon as ready, an outcome is judged as soon as it is computed, in parallel with the
  // others, so a reflective policy's calls never hold up the outcomes behind it; applied at a
  // point the commits define, it is judged there, against everything applied before it.
  const judgeEarly = timing === 'when-ready';
  const evolve = new EvolvePipeline<PreparedEvolve>({
    ...(judgeEarly ? { prepare: (evo: EvolveOutcome) => prepareEvolve(commitDeps, evo, judge) } : {}),
    apply: async (evo, early) => {
      ctrl?.gapObserved(evolveGap(evo, o.supervisor.getSnapshot().context.poolVersion + 1));
      const changes = applyEvolve(commitDeps, evo, early ?? await prepareEvolve(commitDeps, evo, judge));
      if (changes) stale.record(changes);
    },
    limit: () => (ctrl ? ctrl.limit('evolve') : Number.MAX_SAFE_INTEGER),
    held: timing === 'lag',
    onStarted: () => ctrl?.started('evolve', runNow()),
    onProduced: () => ctrl?.produced('evolve', runNow()),
  });
  // Sequential (one task in flight) is the paper's loop: a task's evolve stage is applied before
  // the next one starts. A zero-time model makes every evolve outcome ready at once: waiting for it
  // costs nothing and keeps application points independent of real I/O.
  let settleAtSync = inFlight === 1 || timing === 'instant';
  let life = scenario.population.lifecycle;
  const nichesSeen: string[] = [];
  let recent: Record<string, number> = {};
  let windowNo = 0;
  let nextAgent = o.firstNewAgent;
  const lifecycleWindow = async (operators: boolean) => {
    windowNo++;
    const before = o.usage?.stage('lifecycle');
    nextAgent = await runLifecycleWindow({
      supervisor: o.supervisor, model: o.model, log: o.log, config: life, teamSize: ASSEMBLERS[o.preset.assembler]!.teamSize,
      operators, window: windowNo, tasksSeen: committed, nichesSeen, recentNiches: recent, specs: new Map([...o.niches].map(([id, n]) => [id, n.spec])),
      c0: o.scenario.memory.c0, eta: o.scenario.memory.eta, tracker: o.tracker, lineage: o.lineage, nextAgent,
      rng: o.rng.fork(`lifecycle/${windowNo}`),
    });
    // Persona writing serves no task: the window's own event carries what it spent.
    const after = o.usage?.stage('lifecycle');
    if (before && after && after.calls > before.calls) {
      const spent = {
        calls: after.calls - before.calls, promptTokens: after.promptTokens - before.promptTokens, completionTokens: after.completionTokens - before.completionTokens,
        ...(after.costNanoUsd !== undefined ? { costNanoUsd: after.costNanoUsd - (before.costNanoUsd ?? 0) } : {}),
      };
      o.budget?.add({ lifecycle: spent });
      o.log.append({ type: 'lifecycle.usage', window: windowNo, tokens: { lifecycle: spent } });
    }
    recent = {};
  };

  let outage = false;
  /** Wait for evolve outcomes to be applied, unless the run is cut or an outage lasts too long first; true when it may go on. */
  const evolved = async (wait: Promise<void>): Promise<boolean> => {
    const r = await interrupt.race(wait.then(() => 'ok' as const));
    if (r === 'outage') outage = true;
    return r === 'ok';
  };
  // A resumed run re-executing its log starts a task only where the log did: a run stopped
  // gracefully let its tasks in flight commit without starting new ones.
  const replayAllowsStart = () => { const next = o.log.nextReplayType; return next === undefined || next === 'task.started' || running.size === 0; };
  for (;;) {
    evolve.check();
    // Every evolve outcome queued so far (by the last commit) is applied before tasks start; no
    // commit comes between this and the next one, so nothing more is queued before it.
    if (settleAtSync && !o.cut?.aborted && !(await evolved(evolve.settle()))) break;
    while (!exhausted && started - committed < solveLimit() && !o.stop?.aborted && !o.cut?.aborted && !outage && !budgetStop && replayAllowsStart() && (o.meta?.mayStart(started) ?? true)) {
      // No endpoint is healthy: start nothing until one is back (the pool keeps probing).
      if (o.health && !o.health.available()) {
        if ((await interrupt.race(outageWatch.pause())) === 'outage') outage = true;
        continue;
      }
      // Spent: start nothing more; the tasks in flight finish and commit, as after a stop request.
      budgetStop = o.budget?.checkStart(started - committed) ?? null;
      if (budgetStop) break;
      start();
    }
    if (outage || o.cut?.aborted) break;
    const pending = running.get(committed);
    if (!pending) break;
    const outcome = await interrupt.race(pending);
    if (outcome === 'cut') break;
    if (outcome === 'outage') { outage = true; break; }
    running.delete(committed);
    if (timing === 'lag' && !(await evolved(evolve.applyThrough(committed - solveLimit() + 1)))) break;
    const changes = commitTask(commitDeps, outcome);
    o.budget?.taskCommitted();
    if (ctrl) {
      const t = runNow();
      ctrl.enqueued('evolve', t);
      ctrl.produced('solve', t);
      const tokens = o.generatedTokens?.() ?? 0;
      ctrl.work(tokens - tokensSeen, t);
      tokensSeen = tokens;
    }
    evolve.enqueue(outcome, changes.poolVersion);
    committed++;
    // Each change of the window or the evolve workers is an event of this commit group.
    for (const c of ctrl?.tick(runNow()) ?? []) o.log.append(concurrencyEvent(c));
    if (ctrl) evolve.pump();
    const niche = outcome.deps.task.niche;
    if (!nichesSeen.includes(niche)) nichesSeen.push(niche);
    recent[niche] = (recent[niche] ?? 0) + 1;
    // Lifecycle runs between commits: tasks already in flight keep their snapshots, later ones see the new roster.
    if (committed % life.every === 0) {
      if (settleAtSync && !(await evolved(evolve.settle()))) break;
      await lifecycleWindow(o.preset.lifecycle && o.preset.pool === 'scenario');
    }
    // A segment's end (meta-editing): quiescent, every evolve outcome applied, then the harness reports
    // the segment and the meta-editor may change the procedure the next tasks start under.
    if (o.meta?.atBoundary(committed, started) && committed < o.total) {
      if (!(await evolved(evolve.settle()))) break;
      const next = (await o.meta.boundary(committed)).scenario;
      o.budget?.add(o.meta.lastCost);
      if (next !== scenario) {
        scenario = next;
        const w = scenario.engine.inFlight;
        if (typeof w === 'number' && !ctrl) window = w;
        settleAtSync = scenario.engine.inFlight === 1 || timing === 'instant';
        life = scenario.population.lifecycle;
        commitDeps = { ...commitDeps, routing: routingOf() };
      }
    }
    o.checkpoint?.();
    o.onProgress?.({ ...o.summary.progress(), total: o.total });
    // The in-process simulator answers in microtasks only: let signals, timers and I/O in between tasks.
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  // Evolve outcomes of committed tasks are applied before the run stops; a cut or an outage
  // abandons them (a resume re-runs them), and a cut during this wait still stops at once.
  if (!outage && !o.cut?.aborted) await evolved(evolve.settle());
  if (outage || o.cut?.aborted || (o.stop?.aborted && ((!exhausted && committed < o.total) || committed < started))) {
    return { interrupted: true, reason: outage ? 'outage' : 'stop', committed };
  }
  if (budgetStop && committed < o.total) return { interrupted: true, reason: 'budget', budget: budgetStop, committed };
  // Record where specialization ended even when the stream stops mid-window.
  if (committed % life.every !== 0) await lifecycleWindow(false);
  return { interrupted: false, committed };
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
