import path from 'node:path';
import type { LanguageModel } from '../../llm/model';
import type { EndpointUsage } from '../../llm/openai/endpoint';
import { BudgetMeter, type BudgetStop } from '../loop/budget';
import { continueRun } from '../run/continue-run';
import type { Progress } from '../loop/engine';
import { modelPlugins, type ModelPlugin, type VirtualStats } from '../scenario/model-plugins';
import { RunProcesses } from '../run/run-processes';
import { runScenario, type RunResult, type StopOptions } from '../run/run-scenario';
import type { LoadedScenario } from '../scenario/scenario';
import type { Scenario } from '../scenario/scenario-schema';
import { applyScenarioPatch } from '../scenario/apply-patch';
import { mergePatches, patchWithout, type ScenarioPatch } from '../../core/scenario-patch';
import { createSharedBackend, type SharedBackend } from './shared-backend';
import type { RunSummary } from '../loop/summary';
import { RunWindow, type RunWindowChange } from './sweep-window';
import type { SweepPriorities } from './critical-path';

/** One run of a sweep. */
export interface SweepJob {
  readonly variant: string;
  readonly seed: number;
  readonly outDir: string;
  /** This run's own patch, over the sweep's (`ablate --deadline` gives a run a window). */
  readonly patch?: ScenarioPatch;
}

/** How a sweep's runs are run on this machine. */
export interface LocalSweepOptions extends StopOptions {
  /**
   * What every run changes in the scenario (`stream.tasks`, `engine.inFlight`, the model, …), keyed
   * by path; each run adds its variant and seed. It may set the sweep's own budget (`sweepBudget`)
   * and how the sweep runs (`sweep.parallel`, `sweep.jobs`: scenario-schema's `sweep`), which no run sees.
   */
  readonly patch?: ScenarioPatch;
  /**
   * Worker processes for the zero-time simulator's runs when the scenario's `sweep.jobs` is unset
   * (default 1; the CLI and the package entry give the core count). A machine's default, not a
   * sweep setting: the plan file never records it. Needs `childEntry`.
   */
  readonly defaultJobs?: number;
  /** The script a worker process runs (the CLI's run-child); set by the composition, never by a scenario. */
  readonly childEntry?: string;
  /**
   * Scheduling priorities over a shared server (critical-path.ts): the order runs start in, and each
   * run's requests carry its priority (vLLM's `priority`). Unset: jobs in order, no priority sent.
   */
  readonly runPriorities?: SweepPriorities;
  readonly model?: () => LanguageModel;
  readonly plugins?: readonly ModelPlugin[];
  readonly onRunStart?: (variant: string, seed: number) => void;
  readonly onRunProgress?: (variant: string, seed: number, p: Progress) => void;
  /** A run finished (in the order runs finish). */
  readonly onRunDone?: (variant: string, seed: number, summary: RunSummary) => void;
  /** A line for the operator (the mode chosen, a change of the number of runs at once). */
  readonly onNote?: (line: string) => void;
}

/** What a local sweep produced. */
export interface LocalSweepResult {
  /** Summaries by `variant/seed` (runKey). */
  readonly results: Map<string, RunSummary>;
  /** Runs the sweep's budget kept from starting. */
  readonly notRun: SweepJob[];
  /**
   * A stop request, or a run's own budget, left runs unfinished. A run stopped by its own budget
   * does not keep the others from running; each is named through `onNote`.
   */
  readonly interrupted: boolean;
  /** How the runs ran. */
  readonly mode: 'processes' | 'in-process';
  /** What the runs shared. */
  readonly shared: SharedBackend['kind'];
  /** The shared virtual server over the whole sweep (virtual time only), and each run's virtual seconds. */
  readonly server?: VirtualStats & { readonly profile: string };
  /** The shared pool's per-endpoint usage over every run (HTTP only). */
  readonly endpoints?: Record<string, EndpointUsage>;
  /** With `parallel: auto`: the changes of the number of runs at once. */
  readonly window?: { readonly changes: readonly RunWindowChange[]; readonly final: number };
  /** The sweep's budget stop, when it kept runs from starting. */
  readonly budgetStop?: BudgetStop;
  /** Speculative completion was switched off in every run (its cancellations would depend on the other runs' timing). */
  readonly speculativeOff: boolean;
}

/** The key of one (variant, seed) run. */
export function runKey(variant: string, seed: number): string {
  return `${variant}/${seed}`;
}

/**
 * Run a sweep's jobs on this machine and collect their summaries. The zero-time simulator's runs
 * go to worker processes (`jobs`, each run deterministic as alone); every other backend's runs stay
 * in this process, `parallel` at once over one shared backend. Shared timing means a run's
 * cancellations would depend on the others', so speculative completion is switched off there (said
 * through `onNote`). The results do not depend on the order runs finish in.
 */
export async function runLocalSweep(loaded: LoadedScenario, jobs: readonly SweepJob[], opts: LocalSweepOptions, resume: boolean): Promise<LocalSweepResult> {
  const plugins = modelPlugins(opts.plugins);
  // The sweep as its runs see it: the backend they share and the sweep's budget are read from it.
  const swept = applyScenarioPatch(loaded, opts.patch);
  const settings = swept.scenario.sweep ?? {};
  const parallel = settings.parallel;
  const jobCount = settings.jobs ?? opts.defaultJobs ?? 1;
  const shared = opts.model ? null : createSharedBackend(swept.scenario, plugins);
  const kind = shared?.kind ?? 'none';
  const processes = kind === 'none' && !opts.model && jobCount > 1 && opts.childEntry !== undefined;
  const speculativeOff = kind === 'virtual' || (kind === 'pool' && parallel !== 1 && parallel !== undefined);
  const specOff = speculativeOff && swept.scenario.structures.speculative;
  if (specOff) {
    opts.onNote?.('speculative completion is off in this sweep: its runs share one server, so a run\'s cancellations would depend on the others\' timing (compare a run alone with structures.speculative false)');
  }
  // This process is one of the `jobs`: it runs one run at a time itself, the workers the others. A
  // worker pays its own start and JIT warm-up (docs/benchmarks.md, "Speed"); this process has paid both.
  const workers = processes ? Math.min(jobCount, jobs.length) - 1 : 0;
  const pool = workers > 0 ? new RunProcesses(opts.childEntry!, workers) : null;
  let hereBusy = false;
  const window = parallel === 'auto' && !processes ? new RunWindow(jobs.length) : null;
  const limit = () => (processes ? Math.min(jobCount, jobs.length) : window ? window.limit : Math.max(1, parallel === 'auto' ? 1 : parallel ?? 1));
  opts.onNote?.(processes
    ? `${jobs.length} runs over ${limit()} processes (this one and ${workers} worker${workers === 1 ? '' : 's'})`
    : `${jobs.length} runs in this process, ${window ? 'the number at once found from measured throughput' : `${limit()} at once`}${kind === 'pool' ? ', over one endpoint pool' : kind === 'virtual' ? ', on one virtual server' : ''}`);
  const changes: RunWindowChange[] = [];
  // Priorities mean something only where runs share a server's queue.
  const priorities = kind === 'virtual' || kind === 'pool' ? opts.runPriorities : undefined;
  if (opts.runPriorities && !priorities) opts.onNote?.(`priorities (${opts.runPriorities.name}) are off: the runs share no server`);
  const clock = () => shared?.now() ?? performance.now() / 1000;
  const sweepBudget = swept.scenario.sweepBudget;
  const meter = sweepBudget ? new BudgetMeter(sweepBudget) : null;
  const results = new Map<string, RunSummary>();
  const notRun: SweepJob[] = [];
  let budgetStop: BudgetStop | undefined;
  let interrupted = false;
  // Runs stopped by their own budget (the scenario's): the others go on, and the sweep ends interrupted.
  let ownBudgetStops = 0;
  const onStop = () => pool?.stop();
  opts.stop?.addEventListener('abort', onStop, { once: true });
  // A second Ctrl-C marks every run under way interrupted, here and in the worker processes.
  const abandons = new Set<() => void>();
  opts.onAbandonable?.(() => {
    for (const a of abandons) a();
    pool?.abandon();
  });

  const runsPatch = patchWithout(opts.patch ?? {}, ['sweep']);
  const stopOpts: StopOptions = { stop: opts.stop, graceMs: opts.graceMs };
  const runOne = (job: SweepJob): Promise<RunResult> => {
    // The sweep's patch (less its own `sweep.*` settings), then the run's variant and seed, then its own settings (a deadline's window).
    const patch = mergePatches(runsPatch, { variant: job.variant, seed: job.seed }, job.patch, specOff ? { 'structures.speculative': false } : {});
    const common = { patch, outDir: job.outDir, graceMs: opts.graceMs };
    const key = runKey(job.variant, job.seed);
    const progress = (p: Progress) => {
      priorities?.progress(key, p.done, p.total, clock());
      opts.onRunProgress?.(job.variant, job.seed, p);
      observeWindow();
    };
    if (pool && hereBusy) return pool.run({ config: loaded.scenario, file: loaded.file, dir: loaded.dir, opts: common, resume }, progress);
    if (processes) {
      hereBusy = true;
      return runHere(key, common, progress).finally(() => { hereBusy = false; });
    }
    return runHere(key, common, progress);
  };
  const runHere = (key: string, common: { patch: ScenarioPatch; outDir: string; graceMs?: number }, progress: (p: Progress) => void): Promise<RunResult> => {
    // No per-run HTML reports (no afterRun): `evochamber report <ablation dir>` draws the variants side by side.
    const runOpts = {
      ...common, ...stopOpts, onProgress: progress, onAbandonable: (a: () => void) => { abandons.add(a); },
      ...(opts.model ? { model: opts.model() } : {}), ...(opts.plugins ? { plugins: opts.plugins } : {}),
      ...(shared && kind !== 'none' ? { shared: { backend: priorities ? { forRun: (sc: Scenario, k: string) => shared.forRun(sc, k, () => priorities.priority(key)) } : shared, key } } : {}),
    };
    // Resuming: finished runs are read back, interrupted or crashed ones resumed, missing ones run.
    return resume ? continueRun(loaded, runOpts) : runScenario(loaded, runOpts);
  };
  const observeWindow = () => {
    if (!window || !shared) return;
    const pace = shared.pace();
    if (!pace) return;
    const c = window.observe(shared.now() ?? performance.now() / 1000, pace, queue.length);
    if (c) {
      changes.push(c);
      opts.onNote?.(`runs at once ${c.from} → ${c.to}: ${c.step.detail}`);
    }
  };

  const queue = priorities ? priorities.order(jobs, (j) => runKey(j.variant, j.seed)) : [...jobs];
  const running = new Map<string, Promise<void>>();
  try {
    for (;;) {
      while (running.size < limit() && queue.length > 0 && !opts.stop?.aborted && !interrupted) {
        const stopNow = meter?.checkStart(running.size) ?? null;
        if (stopNow) {
          budgetStop = stopNow;
          notRun.push(...queue.splice(0));
          opts.onNote?.(`the sweep's budget is spent (${stopNow.limit}: ${Math.round(stopNow.spent)} of ${stopNow.budget}, ${Math.round(stopNow.projected)} with the runs under way): ${notRun.length} runs not started`);
          break;
        }
        const job = queue.shift()!;
        const key = runKey(job.variant, job.seed);
        opts.onRunStart?.(job.variant, job.seed);
        priorities?.started(key, clock());
        running.set(key, runOne(job).then((r) => {
          if (r.interrupted && r.budget) {
            ownBudgetStops++;
            const flag = r.budget.limit === 'usd' ? 'usd' : r.budget.limit === 'tokens' ? 'tokens' : 'completion-tokens';
            opts.onNote?.(`${job.variant} seed ${job.seed} stopped at its own budget after ${r.summary.tasks} tasks (${r.budget.limit}: ${Math.round(r.budget.spent)} of ${r.budget.budget}); ` +
              `continue it with "evochamber resume ${r.runDir} --budget-${flag} N", then the sweep with "evochamber resume ${path.dirname(job.outDir)}"`);
            return;
          }
          if (r.interrupted) { interrupted = true; return; }
          results.set(key, r.summary);
          opts.onRunDone?.(job.variant, job.seed, r.summary);
          meter?.add({ total: r.summary.tokens.total });
          meter?.taskCommitted();
        }).finally(() => { priorities?.finished(key); running.delete(key); }));
      }
      if (running.size === 0) break;
      // Every entry settles (a run always ends, interrupted or not), so nothing is left waiting.
      await Promise.race(running.values());
    }
  } finally {
    opts.stop?.removeEventListener('abort', onStop);
    await pool?.close();
    await shared?.close();
  }
  const stats = shared?.stats();
  const endpoints = shared?.endpointUsage();
  return {
    results, notRun, interrupted: interrupted || ownBudgetStops > 0 || (opts.stop?.aborted === true && results.size + notRun.length < jobs.length),
    mode: processes ? 'processes' : 'in-process', shared: kind, speculativeOff,
    ...(stats ? { server: { ...stats, profile: swept.scenario.model.backend === 'sim' ? (swept.scenario.model.latency ?? 'auto') : '' } } : {}),
    ...(endpoints ? { endpoints } : {}),
    ...(window ? { window: { changes, final: window.limit } } : {}),
    ...(budgetStop ? { budgetStop } : {}),
  };
}

/** The run directory of a job inside a sweep's output directory. */
export function jobDir(outDir: string, variant: string, seed: number): string {
  return path.join(outDir, `${variant}-s${seed}`);
}
