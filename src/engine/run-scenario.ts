import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { customAlphabet } from 'nanoid';
import { createActor } from 'xstate';
import { loadPersonaTemplate } from '../individual/persona-template';
import { createModel, offlineModel, useModel, virtualLatency, type CreatedModel, type VirtualLatency } from './create-model';
import { JOURNAL_FILE, JournaledModel, type MissingCall } from '../llm/request-journal';
import type { LanguageModel } from '../llm/model';
import { SimSideChannel } from '../llm/sim/side-channel';
import { AccountingModel } from '../llm/token-accounting';
import { viewRoster } from '../individual/agent-view';
import { supervisorMachine } from '../population/supervisor-machine';
import { sendToSupervisor, supervisorFailure } from '../population/supervisor-ops';
import { EventLog } from '../store/event-log';
import { RunLock, RunLockedError, lockLiveness, readRunLock } from '../store/run-lock';
import { RunStore, runState } from '../store/run-store';
import { buildNiches, GraderSet } from '../tasks/niche-registry';
import type { Niche } from '../tasks/niche';
import type { Grader } from '../tasks/task';
import { taskStream } from '../tasks/stream';
import { systemClock, type Clock } from '../core/clock';
import { runEngine, type Progress } from './engine';
import { SimModel } from '../llm/sim/sim-model';
import { getPreset } from './presets';
import { createRng } from '../core/rng';
import { parseScenario, withOverrides, type LoadedScenario } from './scenario';
import type { InFlight } from './scenario-schema';
import { SummaryBuilder, type RunSummary } from './summary';
import { StabilityTracker } from '../population/specialization';
import { emptyLineage } from '../population/lifecycle';
import { structureRegistry, type StructureRegistry } from '../team/structures';
import type { StructureDescriptor } from '../team/structures/structure';

const runSuffix = customAlphabet('0123456789abcdefghijklmnopqrstuvwxyz', 6);

/** How a run is stopped from outside (signals): a stop request, then a grace period, then a cut. */
export interface StopOptions {
  /** Aborted: start no more tasks; those in flight finish (or are cut after `graceMs`). */
  readonly stop?: AbortSignal;
  /** How long in-flight tasks may take to finish after a stop (default 60 000 ms). */
  readonly graceMs?: number;
  /**
   * Receives, once the run directory is written, a synchronous function that marks the run
   * interrupted on disk at once (a second Ctrl-C: the caller exits right after; the run stays resumable).
   */
  readonly onAbandonable?: (abandon: () => void) => void;
}

/** Extensions a run uses beside the built-in ones (library callers and tests). */
export interface ExtensionOptions {
  /**
   * Collaboration structures added to the built-in ones for this run: choosable ones are offered
   * to the leader, and any may be a preset's fixed structure. A resume must pass the same ones.
   */
  readonly structures?: readonly StructureDescriptor[];
}

/**
 * Work done once a run has finished and its files are closed (never after an interrupted or failed
 * run); a path it returns is recorded as the summary's `reportPath`. The engine knows nothing of
 * reports, which sit above it: the package entry and the CLI pass the report writer here.
 */
export type AfterRun = (runDir: string, clock: Clock) => Promise<string | undefined>;

/** Per-run overrides, as the CLI flags and scripts give them. */
export interface RunOptions extends StopOptions, ExtensionOptions {
  readonly variant?: string;
  readonly seed?: number;
  /** Number of tasks in the stream. */
  readonly tasks?: number;
  /** Tasks in flight, or `"auto"` (the adaptive controller); overrides `engine.inFlight`. */
  readonly inFlight?: InFlight;
  /** Staleness policy and τ (`engine.staleness`); either may be given alone. */
  readonly staleness?: { readonly policy?: string; readonly tau?: number };
  /** When evolve outcomes are applied (`engine.evolveTiming`): `lag` or `when-ready`. */
  readonly evolveTiming?: 'lag' | 'when-ready';
  /** The run directory itself (default `runs/<scenario>-<variant>-s<seed>-<id>`). It must not hold a run already. */
  readonly outDir?: string;
  /** Replace a run already in `outDir` (default: refuse, suggesting `resume`). */
  readonly force?: boolean;
  /**
   * Keep the request journal (`journal.jsonl`). Default: on for HTTP backends, where calls cost and
   * a resume must not pay for them twice; off for the in-process simulator, whose calls are free
   * and which a resume simply re-computes (turn it on to `--replay` a simulated run).
   */
  readonly journal?: boolean;
  /** Re-run from this run directory's request journal, offline; a call it lacks fails the run, naming it. */
  readonly replayFrom?: string;
  /** A model to use instead of the scenario's backend (tests, custom backends). */
  readonly model?: LanguageModel;
  readonly onProgress?: (p: Progress) => void;
  readonly clock?: Clock;
  /** Run once the run finishes (the package entry's `runScenario` writes the HTML report here). */
  readonly afterRun?: AfterRun;
}

/** Options of `resumeRun`: what may change between the interrupted process and the resuming one. */
export interface ResumeOptions extends StopOptions, ExtensionOptions {
  /** A model to use instead of the scenario's backend (must answer as the original did). */
  readonly model?: LanguageModel;
  readonly onProgress?: (p: Progress) => void;
  readonly clock?: Clock;
  readonly afterRun?: AfterRun;
}

/** What a run returns: its summary (of the committed tasks, when interrupted) and where it lives. */
export interface RunResult {
  readonly summary: RunSummary;
  readonly runDir: string;
  /** True when the run stopped early (signal, outage); `evochamber resume <runDir>` continues it. */
  readonly interrupted?: boolean;
}

/** `--out` names a directory that already holds a run. */
export class RunDirExistsError extends Error {
  constructor(dir: string, status: string) {
    super(`${dir} already holds a run (${status}): continue it with "evochamber resume ${dir}", or pick a new --out (--force replaces it)`);
    this.name = 'RunDirExistsError';
  }
}

/** Apply the per-run overrides to a scenario (re-validated). */
export function applyRunOptions(loaded: LoadedScenario, opts: RunOptions): LoadedScenario {
  return withOverrides(loaded, {
    ...(opts.variant !== undefined ? { variant: opts.variant } : {}),
    ...(opts.seed !== undefined ? { seed: opts.seed } : {}),
    ...(opts.tasks !== undefined ? { stream: { tasks: opts.tasks } } : {}),
    ...(opts.inFlight !== undefined || opts.staleness !== undefined || opts.evolveTiming !== undefined ? {
      engine: {
        ...(opts.inFlight !== undefined ? { inFlight: opts.inFlight } : {}),
        ...(opts.staleness !== undefined ? { staleness: opts.staleness } : {}),
        ...(opts.evolveTiming !== undefined ? { evolveTiming: opts.evolveTiming } : {}),
      },
    } : {}),
  });
}

/**
 * Run a scenario end to end: build niches and the model, spawn the seed agents under the
 * supervisor, run the stream, write `run.json`, `events.jsonl` and `journal.jsonl`, and return
 * the summary. Deterministic under the simulated model for a scenario and seed (apart from runDir
 * and timing). Refuses an `outDir` that already holds a run unless `force`.
 */
export async function runScenario(base: LoadedScenario, opts: RunOptions = {}): Promise<RunResult> {
  const loaded = applyRunOptions(base, opts);
  const { scenario } = loaded;
  const runDir = path.resolve(opts.outDir ?? path.join('runs', `${scenario.name}-${scenario.variant}-s${scenario.seed}-${runSuffix()}`));
  return executeRun(loaded, runDir, opts, null);
}

/**
 * Continue an interrupted or crashed run in its own directory. The stream is re-executed from
 * the start with every model call already answered served from the run's request journal, which
 * rebuilds the whole pool state (archives, competence, synergy, leadership bank, roster, lineage,
 * rng streams, summary) without paying for a finished call twice; the re-executed events are
 * checked against the durable part of `events.jsonl` (a divergence is an error), then the run
 * goes on appending. Under the simulated model the final summary equals an uninterrupted run's.
 */
export async function resumeRun(runDir: string, opts: ResumeOptions = {}): Promise<RunResult> {
  const dir = path.resolve(runDir);
  if (!existsSync(path.join(dir, 'run.json'))) throw new Error(`${runDir}: no run to resume (no run.json)`);
  const store = await RunStore.open(dir);
  const { state, lock } = runState(dir, store.data.status);
  if (state === 'finished') throw new Error(`${runDir}: the run already finished; nothing to resume`);
  if (lock && lockLiveness(lock) !== 'dead' && state === 'running') throw new RunLockedError(runDir, lock, lockLiveness(lock));
  const loaded = parseScenario(store.data.config, path.join(dir, 'run.json'), store.data.scenarioDir ?? process.cwd());
  return executeRun(loaded, dir, opts, store);
}

/** Make `dir` ready for a new run: refuse one that holds a run, unless `force` (never a live one). */
function prepareRunDir(dir: string, force: boolean): void {
  if (!RunStore.exists(dir)) return;
  const lock = readRunLock(dir);
  if (lock && lockLiveness(lock) !== 'dead') throw new RunLockedError(dir, lock, lockLiveness(lock));
  if (!force) {
    let status = 'no run.json';
    try {
      status = (JSON.parse(readFileSync(path.join(dir, 'run.json'), 'utf8')) as { status?: string }).status ?? 'unknown status';
    } catch { /* keep the default */ }
    throw new RunDirExistsError(dir, status);
  }
  for (const f of ['run.json', 'events.jsonl', JOURNAL_FILE, 'run.lock']) rmSync(path.join(dir, f), { force: true });
}

function buildModel(scenario: LoadedScenario['scenario'], opts: RunOptions, sideChannel: SimSideChannel): CreatedModel {
  if (opts.replayFrom) return offlineModel(scenario, sideChannel);
  if (!opts.model) return createModel(scenario, sideChannel);
  // An injected model runs in virtual time too when the scenario asks (its answers are held until ready).
  const latency = virtualLatency(scenario);
  return { ...useModel(opts.model, sideChannel), ...(latency ? { latency } : {}) };
}

/**
 * In virtual time, graders are real work outside it: the clock stands still while any of a
 * grader's async methods runs (grade, and the code grader's public tests).
 */
function holdGraders(niches: Map<string, Niche>, latency: VirtualLatency | undefined): Map<string, Niche> {
  if (!latency) return niches;
  const held = (g: Grader): Grader => new Proxy(g, {
    get(target, prop) {
      const v: unknown = Reflect.get(target, prop, target);
      if (typeof v !== 'function') return v;
      return (...args: unknown[]) => {
        const out: unknown = (v as (...a: unknown[]) => unknown).apply(target, args);
        return out instanceof Promise ? latency.hold(out) : out;
      };
    },
  });
  return new Map([...niches].map(([id, n]) => [id, { ...n, grader: held(n.grader) }]));
}

async function executeRun(loaded: LoadedScenario, runDir: string, opts: RunOptions, resumed: RunStore | null): Promise<RunResult> {
  const { scenario } = loaded;
  const preset = getPreset(scenario.variant);
  const structures = structureRegistry(opts.structures);
  if (!structures.has(preset.structure)) throw new Error(`variant "${preset.name}": unknown structure "${preset.structure}"`);
  const clock = opts.clock ?? systemClock;
  const persona = loadPersonaTemplate(scenario.agents.template);
  const replaySource = opts.replayFrom ? path.join(path.resolve(opts.replayFrom), JOURNAL_FILE) : undefined;
  if (replaySource && !existsSync(replaySource)) throw new Error(`${opts.replayFrom}: no ${JOURNAL_FILE} to replay from`);
  // The sandbox's threat is model-written code. The in-process simulator's programs are the niche's own
  // reference and distractor programs, so a missing bubblewrap does not stop it (it still warns); any
  // real backend, an injected model or a replayed journal needs bubblewrap or the scenario's opt-in.
  const simWritesCode = scenario.model.backend === 'sim' && !opts.model && !opts.replayFrom;
  const graders = new GraderSet({
    codeWorkers: scenario.grading.codeWorkers, codeTimeoutMs: scenario.grading.codeTimeoutMs,
    allowUnsandboxed: scenario.grading.allowUnsandboxed || simWritesCode,
  });
  try {
    const sideChannel = new SimSideChannel();
    const created = buildModel(scenario, opts, sideChannel);
    const niches = holdGraders(buildNiches(scenario.stream.niches, loaded.dir, graders), created.latency);
    try {
      // Before anything is written: a wrong address fails in seconds with one line.
      await created.probe();
      if (!resumed) prepareRunDir(runDir, opts.force ?? false);
      const store = resumed ?? await RunStore.create(runDir, {
        id: path.basename(runDir), createdAt: clock.isoNow(), config: scenario as unknown as Record<string, unknown>, scenarioDir: loaded.dir,
      });
      const lock = RunLock.acquire(runDir, clock.isoNow());
      try {
        if (resumed) await store.update({ status: 'running', error: null, resumes: (store.data.resumes ?? 0) + 1 });
        return await runInDir({ loaded, preset, structures, clock, persona, niches, created, store, lock, runDir, opts, resumed: resumed !== null, replaySource });
      } finally {
        lock.release();
      }
    } finally {
      await created.close();
    }
  } finally {
    await graders.close();
  }
}

interface RunContext {
  readonly loaded: LoadedScenario;
  readonly preset: ReturnType<typeof getPreset>;
  readonly structures: StructureRegistry;
  readonly clock: Clock;
  readonly persona: ReturnType<typeof loadPersonaTemplate>;
  readonly niches: ReturnType<typeof buildNiches>;
  readonly created: CreatedModel;
  readonly store: RunStore;
  readonly lock: RunLock;
  readonly runDir: string;
  readonly opts: RunOptions;
  readonly resumed: boolean;
  readonly replaySource: string | undefined;
}

async function runInDir(c: RunContext): Promise<RunResult> {
  const { scenario } = c.loaded;
  const { preset, clock, niches, created, store, runDir, opts } = c;
  const journalFile = path.join(runDir, JOURNAL_FILE);
  // Every commit is written at once, so a killed process loses nothing. fsync also guards against
  // a power loss; under the in-process simulator a lost run costs nothing to redo, so it is skipped.
  const fsync = scenario.model.backend !== 'sim' || opts.model !== undefined;
  const missing: MissingCall[] = [];
  const replayStop = new AbortController();
  // A resumed run keeps journaling when its journal exists (whatever the default).
  const journalOn = opts.journal ?? (existsSync(journalFile) || c.replaySource !== undefined || scenario.model.backend !== 'sim' || opts.model !== undefined);
  const journal = new JournaledModel(created.model, {
    source: c.resumed ? journalFile : c.replaySource, target: journalOn ? journalFile : undefined, strict: c.replaySource !== undefined, copyServed: c.replaySource !== undefined, fsync,
    embeddings: created.remoteEmbeddings,
    onMissing: (m) => { missing.push(m); replayStop.abort(); },
  });
  // Virtual time sits in front of the journal: an answer it serves takes the same virtual time as a computed one.
  const model = new AccountingModel(created.latency ? created.latency.wrap(journal) : journal);
  const inner = created.model;
  const log = new EventLog(path.join(runDir, 'events.jsonl'), { fsync, clock, ...(c.resumed ? { resume: { resumed: { at: clock.isoNow() } } } : {}) });
  const stop = anySignal(opts.stop, replayStop.signal);
  const cutCtl = new AbortController();
  let graceTimer: ReturnType<typeof setTimeout> | undefined;
  const onStop = () => { graceTimer = setTimeout(() => cutCtl.abort(), opts.graceMs ?? 60_000); };
  if (stop.aborted) onStop();
  else stop.addEventListener('abort', onStop, { once: true });
  let finished = false;
  opts.onAbandonable?.(() => {
    if (finished) return;
    finished = true;
    journal.close();
    log.appendControl({ type: 'run.interrupted', reason: 'abandoned' });
    store.updateSync({ status: 'interrupted', interruptReason: 'abandoned' });
    c.lock.release();
  });
  const dim = (await model.embed(['dimension probe']))[0]!.length;
  const supervisor = createActor(supervisorMachine, {
    input: { dim, synergyEta: scenario.team.synergyEta, synergy0: scenario.team.synergy0 },
  });
  // Without an error observer xstate rethrows an actor's failure from a timer, crashing the process
  // with run.json left `running`. Senders read the failure from the snapshot instead
  // (sendToSupervisor, supervisorFailure) and it fails the run below: run.failed, status failed.
  supervisor.subscribe({ error: () => {} });
  supervisor.start();
  const t0 = clock.now();
  try {
    log.append({ type: 'run.started', scenario: scenario.name, variant: scenario.variant, seed: scenario.seed, tasks: scenario.stream.tasks });
    for (const [id, n] of niches) {
      if (n.skippedRows) log.append({ type: 'dataset.rows-skipped', niche: id, skipped: n.skippedRows });
    }
    const count = preset.pool === 'one' ? 1 : scenario.agents.count;
    for (let i = 0; i < count; i++) {
      const id = `agent-${String(i + 1).padStart(2, '0')}`;
      sendToSupervisor(supervisor, {
        type: 'SPAWN_AGENT',
        input: { id, persona: c.persona.persona, dim, eta: scenario.memory.eta, c0: scenario.memory.c0, origin: { kind: 'seed', parents: [], poolVersion: 0 } },
      });
      log.append({ type: 'agent.spawned', agentId: id, origin: 'seed', persona: c.persona.persona });
    }
    log.commit();
    const summary = new SummaryBuilder(scenario.stream.niches.map((n) => n.id), scenario.engine.staleness);
    const tracker = new StabilityTracker(scenario.population.lifecycle.specialist.stableWindows);
    const lineage = emptyLineage();
    const outcome = await runEngine({
      scenario, preset, model, usage: model, niches, summary, supervisor, log, sideChannel: created.sideChannel,
      tasks: taskStream({ ...scenario.stream, entries: scenario.stream.niches, niches, seed: scenario.seed }),
      total: scenario.stream.tasks,
      rng: createRng(`${scenario.seed}/engine`),
      onProgress: opts.onProgress,
      tracker, lineage, firstNewAgent: count + 1,
      // Journal answers before events: a committed task's calls are never asked again.
      checkpoint: () => { journal.sync(); log.commit(); },
      stop, cut: cutCtl.signal,
      ...(created.health ? { health: created.health } : {}),
      ...(scenario.model.backend === 'openai' ? { outageTimeoutMs: scenario.model.outageTimeoutMs } : {}),
      clock, structures: c.structures,
      // The in-process simulator answers in zero time: evolve outcomes are ready at once. Virtual time
      // predicts a run against a real server, so it applies them as such a run does ('lag').
      // A run --replay of a simulator run is answered from its journal at once, like the simulator.
      evolveTiming: (opts.model ? inner instanceof SimModel : scenario.model.backend === 'sim') && !created.latency ? 'instant' : scenario.engine.evolveTiming,
      // `auto` measures rates on the run's clock: virtual under --latency, else the wall clock.
      runClock: created.latency ? () => created.latency!.now() : () => clock.now() / 1000,
      generatedTokens: created.latency ? () => created.latency!.stats()?.generatedTokens ?? 0 : () => model.report().total?.completionTokens ?? 0,
    });
    const failure = supervisorFailure(supervisor);
    if (failure) throw failure;
    if (missing.length > 0) {
      const names = missing.slice(0, 5).map((m) => m.what).join('; ');
      throw new Error(`replay: ${missing.length} call${missing.length === 1 ? ' is' : 's are'} not in ${c.replaySource}: ${names}${missing.length > 5 ? '; …' : ''}`);
    }
    const roster = viewRoster(supervisor.getSnapshot().context.agents, false);
    const wallSeconds = (clock.now() - t0) / 1000;
    const result = summary.build({
      scenario: scenario.name, variant: scenario.variant, seed: scenario.seed, backend: inner.name, inFlight: scenario.engine.inFlight,
      agents: {
        count: roster.length,
        active: roster.filter((r) => r.status === 'active').length,
        lessons: roster.reduce((a, r) => a + r.archive.size() - r.archive.metaSize(), 0),
        metaInsights: roster.reduce((a, r) => a + r.archive.metaSize(), 0),
      },
      tokens: model.report(),
      cancellations: model.cancellations(),
      poolVersion: supervisor.getSnapshot().context.poolVersion,
      leadlearnEntries: supervisor.getSnapshot().context.bank.size,
      specialists: Object.fromEntries(Object.entries(tracker.history().at(-1) ?? {}).map(([n, a]) => [n, a ? [a] : []])),
      stableSpecialists: tracker.count(),
      lineage,
      runDir,
      timing: { wallSeconds: Math.round(wallSeconds * 1000) / 1000, tasksPerSecond: Math.round((outcome.committed / Math.max(wallSeconds, 1e-9)) * 10) / 10 },
      ...(created.endpointUsage() ? { endpoints: created.endpointUsage() } : {}),
      ...virtualFigures(created.latency),
    });
    const progress = { committed: outcome.committed, total: scenario.stream.tasks };
    if (outcome.interrupted) {
      const reason = outcome.reason === 'outage' ? 'endpoint outage' : 'stop requested';
      finished = true;
      journal.close();
      log.appendControl({ type: 'run.interrupted', reason, committed: outcome.committed, total: scenario.stream.tasks });
      log.close();
      await store.update({ status: 'interrupted', interruptReason: reason, progress, summary: result as unknown as Record<string, unknown> });
      return { summary: result, runDir, interrupted: true };
    }
    log.append({ type: 'run.finished', accuracy: result.accuracy, tasks: result.tasks });
    finished = true;
    journal.close();
    log.close();
    await store.update({ status: 'finished', progress, summary: result as unknown as Record<string, unknown> });
    const reportPath = opts.afterRun ? await opts.afterRun(runDir, clock) : undefined;
    if (reportPath) {
      result.reportPath = reportPath;
      await store.update({ summary: result as unknown as Record<string, unknown> });
    }
    return { summary: result, runDir };
  } catch (err) {
    finished = true;
    journal.close();
    log.appendControl({ type: 'run.failed', error: String((err as Error)?.message ?? err) });
    log.close();
    await store.update({ status: 'failed', error: String((err as Error)?.message ?? err) });
    throw err;
  } finally {
    clearTimeout(graceTimer);
    stop.removeEventListener('abort', onStop);
    supervisor.stop();
  }
}

/** The summary's virtual-time fields (present only in virtual time; deterministic for a seed). */
function virtualFigures(latency: VirtualLatency | undefined): Pick<RunSummary, 'latency' | 'virtualSeconds' | 'tokensPerSecond' | 'utilization'> {
  const s = latency?.stats();
  if (!latency || !s) return {};
  const r4 = (x: number) => Math.round(x * 1e4) / 1e4;
  return {
    latency: latency.profile,
    virtualSeconds: Math.round(s.virtualSeconds * 1000) / 1000,
    tokensPerSecond: Math.round(s.tokensPerSecond * 10) / 10,
    utilization: s.utilization === null ? null : r4(s.utilization),
  };
}

/** A signal aborted when any of the given ones is. */
function anySignal(...signals: Array<AbortSignal | undefined>): AbortSignal {
  return AbortSignal.any(signals.filter((s): s is AbortSignal => s !== undefined));
}
