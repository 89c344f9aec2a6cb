import { rmSync } from 'node:fs';
import path from 'node:path';
import type { ModelPlugin } from '../../scenario/model-plugins';
import { RunProcesses } from '../../run/run-processes';
import { runScenario } from '../../run/run-scenario';
import type { RunResult } from '../../run/run-options';
import type { LoadedScenario } from '../../scenario/scenario';
import { mergePatches, type ScenarioPatch } from '../../../core/scenario-patch';
import { nicheOutcomes, outcomeOf, outcomeSe, type NicheOutcome, type Target } from './targets';

/** What the simulator gave for one target at one parameter vector. */
export interface SimulatedTarget {
  /** Mean reward over the target's niche (or the whole stream), pooled over the seeds. */
  readonly value: number;
  /** Graded tasks behind it, over the seeds. */
  readonly n: number;
  /** Its standard error (the rewards' spread over n). */
  readonly se: number;
}

/** How an evaluation runs its runs. */
export interface EvaluatorOptions {
  readonly targets: readonly Target[];
  /** Seeds of every evaluation (common random numbers): the same runs, only the parameters move. */
  readonly seeds: readonly number[];
  /** Every run's own overrides besides the parameters (`stream.tasks`, …); none by default. */
  readonly patch?: ScenarioPatch;
  /** Where the runs go while they run (each is read, then removed). */
  readonly workDir: string;
  /** Worker processes (with `childEntry`): more than 1 runs an evaluation's runs side by side. */
  readonly jobs?: number;
  readonly childEntry?: string;
  readonly plugins?: readonly ModelPlugin[];
  readonly stop?: AbortSignal;
  /**
   * Write every run's full event log (default: only `task.graded`, what the fit reads, and the
   * run's own events: the runs and their summaries are the same, the logs a fraction of the size).
   */
  readonly fullLogs?: boolean;
}

/** The event types an evaluation reads back (`nicheOutcomes`). */
const EVALUATION_EVENTS = ['task.graded'] as const;

/** A stop request ended an evaluation before its runs finished: nothing of it is kept. */
export class EvaluationInterrupted extends Error {
  constructor() {
    super('calibration interrupted');
    this.name = 'EvaluationInterrupted';
  }
}

interface Group {
  readonly loaded: LoadedScenario;
  readonly variant: string;
  readonly targets: Target[];
}

/**
 * Runs the targets' (scenario, variant) pairs over the same seeds for a scenario patch (a world),
 * and reads back each target's simulated accuracy from the runs' event logs. Runs go to the sweep
 * machinery's worker processes (RunProcesses) when `jobs` > 1, else run in this process. One
 * evaluator serves a whole calibration, so its workers start once.
 */
export class Evaluator {
  private readonly groups: Group[] = [];
  private readonly pool: RunProcesses | null;
  /** Runs under way over every evaluation in flight, and the runs waiting for a worker. */
  private running = 0;
  private readonly waiting: (() => void)[] = [];
  private readonly slots: number;
  /** How long each (group, seed) run took last, in ms: the next evaluation starts the longest first. */
  private readonly lastMs = new Map<string, number>();
  readonly runsPerEvaluation: number;

  constructor(private readonly opts: EvaluatorOptions) {
    for (const t of opts.targets) {
      let g = this.groups.find((x) => x.loaded === t.loaded && x.variant === t.variant);
      if (!g) {
        g = { loaded: t.loaded, variant: t.variant, targets: [] };
        this.groups.push(g);
      }
      g.targets.push(t);
    }
    this.runsPerEvaluation = this.groups.length * opts.seeds.length;
    // Several evaluations may be in flight at once (a simplex's points, the profiles): the workers serve them all.
    const jobs = opts.jobs ?? 1;
    this.pool = jobs > 1 && opts.childEntry ? new RunProcesses(opts.childEntry, jobs) : null;
    this.slots = this.pool ? jobs : 1;
  }

  /**
   * The simulated value of every target (in the targets' order) under `patch` (the parameters'
   * patch: a world); `key` names the evaluation's run directories. Each run is its target's scenario
   * under one patch: every run's, then the parameters', then its variant and seed.
   */
  async evaluate(patch: ScenarioPatch, key: string): Promise<SimulatedTarget[]> {
    const dir = path.join(this.opts.workDir, key);
    rmSync(dir, { recursive: true, force: true });
    const jobs = this.groups.flatMap((g, gi) => this.opts.seeds.map((seed) => ({ g, gi, seed, key: `${gi}/${seed}` })));
    const outcomes = this.groups.map(() => [] as Map<string, NicheOutcome>[]);
    const one = async ({ g, gi, seed, key }: (typeof jobs)[number]) => {
      await this.acquire();
      try {
        if (this.opts.stop?.aborted) throw new EvaluationInterrupted();
        const outDir = path.join(dir, `${gi}-${g.variant}-s${seed}`);
        const t0 = performance.now();
        const r = await this.runOne(g.loaded, mergePatches(this.opts.patch, patch, { variant: g.variant, seed }), outDir);
        this.lastMs.set(key, performance.now() - t0);
        if (r.interrupted) throw new EvaluationInterrupted();
        return { gi, seed, outcome: nicheOutcomes(outDir) };
      } finally {
        this.release();
      }
    };
    // The longest runs start first (as long as they took last time), so an evaluation does not end with
    // one worker busy on a long run and the other idle. Only the start order moves: results are read in
    // the jobs' own order below, so the pooled figures are the same whatever order the runs took.
    const started = new Map<(typeof jobs)[number], ReturnType<typeof one>>();
    const took = (j: (typeof jobs)[number]) => this.lastMs.get(j.key) ?? Number.MAX_VALUE;
    for (const j of [...jobs].sort((a, b) => took(b) - took(a))) started.set(j, one(j));
    try {
      // Settle every run before reading any (a failed one must not leave others writing into a removed directory).
      const settled = await Promise.allSettled(jobs.map((j) => started.get(j)!));
      const failed = settled.find((s) => s.status === 'rejected');
      if (failed) throw (failed as PromiseRejectedResult).reason;
      // Pooled in seed order, whatever order the runs finished in.
      for (const s of settled) {
        const { gi, outcome } = (s as PromiseFulfilledResult<{ gi: number; seed: number; outcome: Map<string, NicheOutcome> }>).value;
        outcomes[gi]!.push(outcome);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    const byTarget = new Map<Target, SimulatedTarget>();
    this.groups.forEach((g, gi) => {
      for (const t of g.targets) {
        const pooled = { n: 0, sum: 0, sumSq: 0 };
        for (const o of outcomes[gi]!) {
          const x = outcomeOf(o, t.niches);
          pooled.n += x.n; pooled.sum += x.sum; pooled.sumSq += x.sumSq;
        }
        byTarget.set(t, { value: pooled.n ? pooled.sum / pooled.n : 0, n: pooled.n, se: outcomeSe(pooled) });
      }
    });
    return this.opts.targets.map((t) => byTarget.get(t)!);
  }

  private acquire(): Promise<void> {
    if (this.running < this.slots) {
      this.running++;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiting.push(() => { this.running++; resolve(); }));
  }

  private release(): void {
    this.running--;
    this.waiting.shift()?.();
  }

  private runOne(loaded: LoadedScenario, patch: ScenarioPatch, outDir: string): Promise<RunResult> {
    const opts = { patch, outDir, ...(this.opts.fullLogs ? {} : { logEvents: EVALUATION_EVENTS }) };
    if (this.pool) return this.pool.run({ config: loaded.scenario, file: loaded.file, dir: loaded.dir, opts, resume: false });
    return runScenario(loaded, { ...opts, ...(this.opts.stop ? { stop: this.opts.stop } : {}), ...(this.opts.plugins ? { plugins: this.opts.plugins } : {}) });
  }

  /** Ask the worker processes' runs to stop (a stop request). */
  stop(): void {
    this.pool?.stop();
  }

  /** Let the worker processes go. */
  async close(): Promise<void> {
    await this.pool?.close();
  }
}
