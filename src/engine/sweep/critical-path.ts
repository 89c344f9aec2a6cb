/** One run's predicted length alone (plan.ts), the basis of its place on the critical path. */
export interface RunForecast {
  /** Predicted seconds of the whole run alone on the server (plan's virtual hours × 3600). */
  readonly seconds: number;
  /** Tasks of the run. */
  readonly tasks: number;
}

/**
 * Scheduling priorities for the runs of a sweep that share one server: which run starts first, and
 * which run's requests the server serves first (vLLM's `priority`, lower first). sweep-local.ts tells
 * it when runs start, progress and finish.
 */
export interface SweepPriorities {
  /** The policy's name, for notes and ablation.json. */
  readonly name: string;
  /** The jobs in the order they should start. */
  order<T extends { readonly variant: string; readonly seed: number }>(jobs: readonly T[], key: (j: T) => string): T[];
  /** A run started at `now` (the sweep's clock, seconds). */
  started(key: string, now: number): void;
  /** A run committed `done` of its `total` tasks by `now`. */
  progress(key: string, done: number, total: number, now: number): void;
  /** A run ended (finished, stopped or failed): it no longer counts. */
  finished(key: string): void;
  /** The run's priority now: 0 for the run with the longest remaining path, 1 for the next, … */
  priority(key: string): number;
}

/** Tasks after which a run's own measured pace counts as much as the plan's (it counts done/(done + this)). */
const BLEND_TASKS = 20;

interface RunState {
  readonly planned: RunForecast;
  startedAt?: number;
  done: number;
  total: number;
  /** Measured seconds per task over the plan's, since the run started (undefined before its first commit). */
  ratio?: number;
  remaining: number;
  over: boolean;
}

/**
 * Critical path first: each run's remaining time is predicted from plan's model (the run's predicted
 * seconds over its tasks), updated by the run's own progress: its measured seconds per task over the
 * plan's, relative to the same ratio over every run under way (sharing slows them all; what tells one
 * run from another is how much more or less it is slowed), blended in as it commits tasks (weight
 * done / (done + 20)). The run with the longest remaining path
 * gets priority 0, the next 1, and so on, so the server serves the run that bounds the sweep first.
 * Runs start longest first (longest-processing-time order). Ties keep the jobs' order. Everything it
 * reads is the sweep's clock and the runs' commits, so under virtual time it is deterministic.
 */
export class CriticalPathPriorities implements SweepPriorities {
  readonly name = 'critical-path';
  private readonly runs = new Map<string, RunState>();
  private ranks = new Map<string, number>();
  /** Keys in the order of the plan's jobs, so ties break the same way every time. */
  private readonly keys: string[];

  constructor(forecasts: ReadonlyMap<string, RunForecast>) {
    this.keys = [...forecasts.keys()];
    for (const [key, planned] of forecasts) this.runs.set(key, { planned, done: 0, total: planned.tasks, remaining: planned.seconds, over: false });
    this.rank();
  }

  order<T extends { readonly variant: string; readonly seed: number }>(jobs: readonly T[], key: (j: T) => string): T[] {
    const planned = (j: T) => this.runs.get(key(j))?.planned.seconds ?? 0;
    return jobs.map((j, i) => ({ j, i })).sort((a, b) => planned(b.j) - planned(a.j) || a.i - b.i).map((x) => x.j);
  }

  started(key: string, now: number): void {
    const r = this.runs.get(key);
    if (r) r.startedAt = now;
  }

  progress(key: string, done: number, total: number, now: number): void {
    const r = this.runs.get(key);
    if (!r || r.over) return;
    r.done = done;
    r.total = total;
    if (done > 0 && r.startedAt !== undefined) r.ratio = (Math.max(0, now - r.startedAt) / done) / Math.max(1e-9, plannedPace(r));
    this.rank();
  }

  finished(key: string): void {
    const r = this.runs.get(key);
    if (!r) return;
    r.over = true;
    r.remaining = 0;
    this.rank();
  }

  priority(key: string): number {
    return this.ranks.get(key) ?? this.ranks.size;
  }

  /** Each run's predicted remaining seconds now (tests, notes). */
  remaining(): Map<string, number> {
    return new Map([...this.runs].map(([k, r]) => [k, r.remaining]));
  }

  private rank(): void {
    const open = this.keys.map((k, i) => ({ k, i, r: this.runs.get(k)! })).filter((x) => !x.r.over);
    const measured = open.filter((x) => x.r.ratio !== undefined);
    const mean = measured.length > 0 ? measured.reduce((a, x) => a + x.r.ratio!, 0) / measured.length : 1;
    for (const { r } of open) {
      const left = Math.max(0, r.total - r.done);
      const w = r.ratio === undefined ? 0 : r.done / (r.done + BLEND_TASKS);
      const relative = r.ratio === undefined || mean <= 0 ? 1 : r.ratio / mean;
      r.remaining = left * plannedPace(r) * (w * relative + (1 - w));
    }
    open.sort((a, b) => b.r.remaining - a.r.remaining || a.i - b.i);
    this.ranks = new Map(open.map((x, rank) => [x.k, rank]));
  }
}

/** The plan's seconds per task of a run. */
function plannedPace(r: RunState): number {
  return r.planned.seconds / Math.max(1, r.planned.tasks);
}
