import type { AutoConfig } from '../../scenario/auto-config';
import { WindowClimb } from './window-climb';

/**
 * Adaptive concurrency (`engine.inFlight: "auto"`): how many solve tasks and evolve jobs run at
 * once, re-decided at most once per control period from what the engine reports.
 * docs/concurrency.md, "Adaptive concurrency", states the same rule with tables.
 *
 * Measured per period, for each stage:
 * - throughput: items finished / period seconds (solve: tasks committed; evolve: jobs finished);
 * - per-worker rate: items finished / busy worker-seconds (the integral of items running), the
 *   inverse of the mean time an item holds a worker (Little's law);
 * - capacity, in tasks' worth per second: per-worker rate × limit / items per task (solve: 1;
 *   evolve: jobs queued per committed task, over the run so far), what the stage would produce with
 *   every worker busy. In a closed loop the stages' completion rates converge (evolve can only
 *   finish what solve gave it), so comparing those says nothing; capacities do differ: an
 *   under-provisioned stage has less, an idle one more.
 * Also the tokens/s reported with `work`, the mean version gap of the evolve items applied, and
 * the mean evolve backlog (jobs waiting).
 *
 * A period ends at the first `tick` at least `periodSeconds` after its start with at least
 * `minItems` solve commits in it (a quieter one is extended). After a period that changed the solve
 * window comes a warm-up period that decides nothing and lasts until the tasks in flight at the
 * change have committed (max(from, to) commits): until then throughput still carries the old window.
 * Otherwise, at most one change per stage, the first rule that fires:
 *
 * Evolve:
 *   1. FlashEvolve: capacity < median / 2 → +1 (`below-median`); > 2 × median → −1 (`above-median`).
 *   2. Backlog: on average at least one job waited, and no fewer than in the period before →
 *      + max(1, ceil(limit × growStep)) (`evolve-backlog`).
 * Solve (the window w):
 *   1. Staleness: mean gap > τ → down to floor(w × τ / gap), at most halving, at least −1
 *      (`gap-over-tau`); the climb then holds.
 *   2. FlashEvolve, as for evolve: −1 above twice the median; +1 below half of it, unless the
 *      climb's probe grows further ("one more worker" is a floor).
 *   3. The climb (window-climb.ts): a two-sided hill climb on tokens/s (commits/s when the engine
 *      reports no work) with slow start, probes `probe` / `probe-down`, and `probe-undone`.
 * The window grows, by any rule, only while the mean gap is at most τ × `gapHeadroom`, or, with no
 * gap measured, while no evolve work is outstanding (an unknown gap holds it), so speed is never
 * bought with staleness. τ = ∞ turns the gap rules off.
 *
 * The median is taken on the ratio scale the rule compares on: for an even count, the geometric
 * mean of the middle two. With two stages their arithmetic mean would make "above twice the
 * median" unreachable; the geometric one makes the rule fire on a 4× imbalance, both ways at once.
 * Every limit stays within its bounds (`min`..`max`, `evolveMin`..`evolveMax`).
 *
 * Deterministic: decisions depend only on the sequence of calls and the times passed in (the
 * engine's run clock, in seconds); nothing here reads a clock or draws a random number.
 */

/** The engine's two stages: `solve` (tasks in flight) and `evolve` (reflection, leadership note, CoDream jobs). */
export type ConcurrencyStage = 'solve' | 'evolve';

/** Why a limit changed (see the rule above). */
export type ConcurrencyReason = 'below-median' | 'above-median' | 'evolve-backlog' | 'gap-over-tau' | 'probe' | 'probe-down' | 'probe-undone';

/** One limit the controller changed, with what it measured in the period that decided it. */
export interface ConcurrencyChange {
  readonly stage: ConcurrencyStage;
  readonly from: number;
  readonly to: number;
  readonly reason: ConcurrencyReason;
  /** The same, in words with the figures that decided it. */
  readonly detail: string;
  /** Run-clock seconds of the decision. */
  readonly at: number;
  /** Solve items produced (tasks committed) before the decision: where in the stream it took effect. */
  readonly committed: number;
  /** Capacity of each stage in tasks' worth per second (what rule 1 compares); null: the stage did no work. */
  readonly rates: Readonly<Record<ConcurrencyStage, number | null>>;
  /** Items each stage produced per second in the period. */
  readonly throughput: Readonly<Record<ConcurrencyStage, number>>;
  /** Output tokens per second the engine reported with `work` in the period; null when it reports none. */
  readonly tokensPerSecond: number | null;
  /** Median of the stages' capacities; null when fewer than two were measured. */
  readonly median: number | null;
  /** Mean version gap of the evolve items applied in the period; null: none was applied. */
  readonly gap: number | null;
  /** Mean evolve jobs waiting for a worker over the period. */
  readonly backlog: number;
}

interface StageState {
  limit: number;
  running: number;
  waiting: number;
  enqueuedTotal: number;
  startedTotal: number;
  producedTotal: number;
  /** Period accumulators: items produced, worker-seconds busy, item-seconds waiting. */
  produced: number;
  busy: number;
  waited: number;
  /** Mean items waiting over the previous period. */
  waitedBefore: number;
}

interface Measured {
  readonly at: number;
  readonly seconds: number;
  readonly rates: Record<ConcurrencyStage, number | null>;
  readonly throughput: Record<ConcurrencyStage, number>;
  readonly tokensPerSecond: number | null;
  readonly median: number | null;
  readonly gap: number | null;
  /** Mean evolve jobs waiting over the period. */
  readonly backlog: number;
}

/**
 * Median of a non-empty list, taken on the log scale the rule compares on: for an even count, the
 * geometric mean of the middle two. (Their arithmetic mean would make "above twice the median"
 * impossible with two stages, since neither of two numbers exceeds twice their mean.)
 */
function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : Math.sqrt(s[m - 1]! * s[m]!);
}

const fmt = (x: number) => (Number.isInteger(x) ? String(x) : x.toPrecision(3));

/**
 * Per-stage concurrency limits that follow measured production rates and the version gap.
 * Contract: the engine reports every item it queues, starts and finishes, and the gap of every
 * evolve item it applies; `tick` returns the changes it made (at most one per stage, at most one
 * decision per period); `limit` always lies within the configured bounds. Same calls, same times:
 * same decisions.
 */
export class AdaptiveConcurrency {
  private readonly stages: Record<ConcurrencyStage, StageState>;
  private readonly tau: number;
  private readonly committedBefore: number;
  private last = 0;
  private periodStart = 0;
  private gapSum = 0;
  private gapCount = 0;
  private tokens = 0;
  /** Whether `work` was ever called: from then on the climb reads tokens/s. */
  private workReported = false;
  private readonly climb: WindowClimb;
  /**
   * Commits the warm-up after a solve change still needs (0: none under way). Until every task in
   * flight at the change has committed, throughput still carries the old window, so that period
   * decides nothing.
   */
  private settling = 0;

  /**
   * @param config `engine.auto`.
   * @param tau the staleness bound τ (`engine.staleness.tau`); `Infinity` turns the gap rules off.
   * @param start run-clock seconds at which measuring starts (default 0).
   * @param under a controller taking over mid-run: items already running and waiting at `start`,
   *   and tasks committed before it (so `committed` in its changes counts from the run's start).
   */
  constructor(
    private readonly config: AutoConfig,
    tau: number,
    start = 0,
    under?: {
      readonly running: Readonly<Record<ConcurrencyStage, number>>;
      readonly waiting: Readonly<Record<ConcurrencyStage, number>>;
      readonly committed: number;
    },
  ) {
    this.committedBefore = under?.committed ?? 0;
    if (!(tau >= 0)) throw new RangeError(`AdaptiveConcurrency: tau must be ≥ 0, got ${tau}`);
    this.tau = tau;
    const fresh = (limit: number): StageState => ({
      limit, running: 0, waiting: 0, enqueuedTotal: 0, startedTotal: 0, producedTotal: 0, produced: 0, busy: 0, waited: 0, waitedBefore: 0,
    });
    this.stages = { solve: fresh(config.initial), evolve: fresh(config.evolveInitial) };
    for (const k of ['solve', 'evolve'] as const) {
      this.stages[k].running = under?.running[k] ?? 0;
      this.stages[k].waiting = under?.waiting[k] ?? 0;
    }
    this.climb = new WindowClimb(config);
    this.last = start;
    this.periodStart = start;
  }

  /** How many items of the stage may run at once now. */
  limit(stage: ConcurrencyStage): number {
    return this.stages[stage].limit;
  }

  /** An item is waiting for a worker of the stage (evolve jobs; solve needs none: the stream is always ready). */
  enqueued(stage: ConcurrencyStage, now: number): void {
    this.advance(now);
    const s = this.stages[stage];
    s.waiting++;
    s.enqueuedTotal++;
  }

  /** A worker of the stage took an item (solve: a task started; evolve: a job started). */
  started(stage: ConcurrencyStage, now: number): void {
    this.advance(now);
    const s = this.stages[stage];
    if (s.waiting > 0) s.waiting--;
    s.running++;
    s.startedTotal++;
  }

  /** One item of the stage completed (solve: a task committed; evolve: a job finished), freeing its worker. */
  produced(stage: ConcurrencyStage, now: number): void {
    this.advance(now);
    const s = this.stages[stage];
    if (s.running === 0) throw new Error(`AdaptiveConcurrency: produced('${stage}') with no ${stage} item started`);
    s.running--;
    s.producedTotal++;
    s.produced++;
  }

  /** The version gap (pool version at application − version it was computed against) of one applied evolve item. */
  gapObserved(gap: number): void {
    if (!(gap >= 0) || !Number.isFinite(gap)) throw new RangeError(`AdaptiveConcurrency: a version gap is a finite number ≥ 0, got ${gap}`);
    this.gapSum += gap;
    this.gapCount++;
  }

  /**
   * Output tokens that just finished (one model call's completion, or a task's): optional, but the
   * window's climb then reads the server's tokens/s instead of commits/s, which in-order commits make
   * bursty (one long task holds back every commit behind it).
   */
  work(tokens: number, now: number): void {
    if (!(tokens >= 0) || !Number.isFinite(tokens)) throw new RangeError(`AdaptiveConcurrency: work is a finite token count ≥ 0, got ${tokens}`);
    this.advance(now);
    this.tokens += tokens;
    this.workReported = true;
  }

  /**
   * End the control period if it is due (long enough, with enough solve commits), decide, and
   * return the changes made (none when the period is not over or nothing needed to change).
   */
  tick(now: number): ConcurrencyChange[] {
    this.advance(now);
    const seconds = now - this.periodStart;
    if (seconds < this.config.periodSeconds || this.stages.solve.produced < this.config.minItems) return [];
    if (this.settling > 0) {
      if (this.stages.solve.produced < this.settling) return [];
      this.settling = 0;
      this.startPeriod(now, seconds);
      return [];
    }
    const m = this.measure(now, seconds);
    const changes: ConcurrencyChange[] = [];
    const evolve = this.decideEvolve(m);
    if (evolve) changes.push(evolve);
    const solve = this.decideSolve(m);
    if (solve) changes.push(solve);
    this.startPeriod(now, seconds);
    this.settling = solve ? Math.max(solve.from, solve.to) : 0;
    return changes;
  }

  private advance(now: number): void {
    if (!Number.isFinite(now)) throw new RangeError(`AdaptiveConcurrency: time must be finite, got ${now}`);
    if (now < this.last) throw new RangeError(`AdaptiveConcurrency: time went back from ${this.last} s to ${now} s`);
    const dt = now - this.last;
    for (const s of Object.values(this.stages)) {
      s.busy += s.running * dt;
      s.waited += s.waiting * dt;
    }
    this.last = now;
  }

  private measure(at: number, seconds: number): Measured {
    const { solve, evolve } = this.stages;
    const perWorker = (s: StageState) => (s.busy > 0 ? s.produced / s.busy : null);
    // Evolve jobs per committed task, over the run so far: it turns evolve capacity into tasks' worth.
    const perTask = Math.max(evolve.enqueuedTotal, evolve.startedTotal) / Math.max(1, solve.producedTotal);
    const ws = perWorker(solve);
    const we = perWorker(evolve);
    const rates: Record<ConcurrencyStage, number | null> = {
      solve: ws === null ? null : ws * solve.limit,
      evolve: we === null || perTask === 0 ? null : (we * evolve.limit) / perTask,
    };
    // Floored so that a stage that produced nothing still has a median to fall below.
    const measured = Object.values(rates).filter((r): r is number => r !== null).map((r) => Math.max(r, 1e-12));
    return {
      at, seconds, rates,
      throughput: { solve: solve.produced / seconds, evolve: evolve.produced / seconds },
      tokensPerSecond: this.workReported ? this.tokens / seconds : null,
      median: measured.length >= 2 ? median(measured) : null,
      gap: this.gapCount > 0 ? this.gapSum / this.gapCount : null,
      backlog: evolve.waited / seconds,
    };
  }

  /** FlashEvolve's rule for one stage: +1 below half the median capacity, −1 above twice it. */
  private balance(stage: ConcurrencyStage, m: Measured): { delta: number; reason: ConcurrencyReason; detail: string } | null {
    const r = m.rates[stage];
    if (r === null || m.median === null) return null;
    if (r < m.median / 2) return { delta: 1, reason: 'below-median', detail: `${stage} capacity ${fmt(r)} tasks/s is below half the median ${fmt(m.median)}` };
    if (r > 2 * m.median) return { delta: -1, reason: 'above-median', detail: `${stage} capacity ${fmt(r)} tasks/s is above twice the median ${fmt(m.median)}` };
    return null;
  }

  private decideEvolve(m: Measured): ConcurrencyChange | null {
    const s = this.stages.evolve;
    const rule = this.balance('evolve', m)
      ?? (m.backlog >= 1 && m.backlog >= s.waitedBefore
        ? { delta: Math.max(1, Math.ceil(s.limit * this.config.growStep)), reason: 'evolve-backlog' as const, detail: `${fmt(m.backlog)} evolve jobs waited on average (${fmt(s.waitedBefore)} in the period before)` }
        : null);
    if (!rule) return null;
    return this.set('evolve', s.limit + rule.delta, rule.reason, rule.detail, m);
  }

  private decideSolve(m: Measured): ConcurrencyChange | null {
    const c = this.config;
    const w = this.stages.solve.limit;
    if (m.gap !== null && m.gap > this.tau) {
      this.climb.restart(c.holdPeriods);
      // The gap grows about in proportion to the window, so aim at w × τ / gap, halving at most.
      const to = Math.min(w - 1, Math.max(Math.floor((w * this.tau) / m.gap), Math.floor(w / 2)));
      return this.set('solve', to, 'gap-over-tau', `mean version gap ${fmt(m.gap)} exceeds τ = ${fmt(this.tau)}`, m);
    }
    const canGrow = w < c.max && this.gapAllowsGrowth(m.gap);
    const rule = this.balance('solve', m);
    if (rule && rule.delta < 0) {
      this.climb.restart(0, 'up', true);
      return this.set('solve', w - 1, rule.reason, rule.detail, m);
    }
    const step = this.climb.step(w, m.tokensPerSecond ?? m.throughput.solve, m.tokensPerSecond === null ? 'tasks/s' : 'tok/s', canGrow);
    // "One more worker" is a floor: a probe that grows further goes ahead (it is judged as usual).
    if (rule && canGrow && !(step && step.to > w + 1)) {
      this.climb.restart(0, 'up', true);
      return this.set('solve', w + 1, rule.reason, rule.detail, m);
    }
    return step ? this.set('solve', step.to, step.reason, step.detail, m) : null;
  }

  /**
   * Growth must not buy speed with staleness: allowed when the gap rules are off (τ = ∞), when the
   * period's mean gap is at most τ × gapHeadroom, or when no evolve item is applied because none is
   * outstanding. Evolve work in progress with nothing applied yet is an unknown gap: hold.
   */
  private gapAllowsGrowth(gap: number | null): boolean {
    if (this.tau === Infinity) return true;
    if (gap !== null) return gap <= this.tau * this.config.gapHeadroom;
    const e = this.stages.evolve;
    return e.running === 0 && e.waiting === 0;
  }

  /** Move a stage's limit within its bounds; the change made, or null when it stays. */
  private set(stage: ConcurrencyStage, wanted: number, reason: ConcurrencyReason, detail: string, m: Measured): ConcurrencyChange | null {
    const c = this.config;
    const [lo, hi] = stage === 'solve' ? [c.min, c.max] : [c.evolveMin, c.evolveMax];
    const s = this.stages[stage];
    const to = Math.min(hi, Math.max(lo, wanted));
    if (to === s.limit) return null;
    const change: ConcurrencyChange = {
      stage, from: s.limit, to, reason, detail, at: m.at, committed: this.committedBefore + this.stages.solve.producedTotal,
      rates: m.rates, throughput: m.throughput, tokensPerSecond: m.tokensPerSecond, median: m.median, gap: m.gap, backlog: m.backlog,
    };
    s.limit = to;
    return change;
  }

  private startPeriod(now: number, seconds: number): void {
    this.periodStart = now;
    for (const s of Object.values(this.stages)) {
      s.waitedBefore = s.waited / seconds;
      s.produced = 0;
      s.busy = 0;
      s.waited = 0;
    }
    this.gapSum = 0;
    this.gapCount = 0;
    this.tokens = 0;
  }
}
