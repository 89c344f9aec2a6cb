import type { AdaptiveConcurrency, ConcurrencyChange } from '../../src/engine/loop/concurrency/adaptive';

/** The limits a stage loop runs under: the adaptive controller, or fixed numbers. */
export type Limits = Pick<AdaptiveConcurrency, 'limit'> & Partial<Pick<AdaptiveConcurrency, 'enqueued' | 'started' | 'produced' | 'gapObserved' | 'tick' | 'work'>>;

/** Fixed limits, for the baselines a controller is compared with. */
export const fixedLimits = (solve: number, evolve: number): Limits => ({ limit: (s) => (s === 'solve' ? solve : evolve) });

/** The workload a stage loop puts on the server (times in run-clock seconds). */
export interface Load {
  readonly tasks: number;
  /** Seconds task `i` takes, given the server load (sequences running) when it starts, its own included. */
  readonly solveSeconds: (load: number, i: number) => number;
  /** Seconds evolve job `j` takes, likewise. */
  readonly evolveSeconds: number | ((load: number, j: number) => number);
  /** Evolve jobs each committed task queues. */
  readonly jobsPerTask: number;
  /** Server sequences one running task holds (default 1); an evolve job holds one. */
  readonly solveWeight?: number;
  /** Output tokens of task `i` and job `j`, reported with `work` when each finishes (default: not reported). */
  readonly tokens?: { readonly task: (i: number) => number; readonly job: (j: number) => number };
}

/** What a stage loop did. */
export interface Trace {
  readonly changes: ConcurrencyChange[];
  /** Solve window after each commit. */
  readonly windows: number[];
  readonly evolveLimits: number[];
  /** Version gap of each applied evolve job, in order of application. */
  readonly gaps: number[];
  /** Run-clock seconds when the last item finished. */
  readonly end: number;
}

/**
 * A small discrete-event engine with the solve/evolve split: tasks start while
 * `started − committed < limit('solve')` and commit in stream order; each commit bumps the pool
 * version and queues evolve jobs tagged with it; jobs run while fewer than `limit('evolve')` are
 * running and are applied when they finish, with their version gap. It calls the controller
 * exactly where the engine must: `started` at each start, `produced` at each commit and each job's
 * end, `enqueued` for each job queued, `gapObserved` at each application, `tick` after each round of
 * commits (all the commits one instant allows).
 */
export function runStageLoop(ctrl: Limits, load: Load): Trace {
  const solve: { finish: number }[] = [];
  const evolve: { finish: number; version: number; job: number }[] = [];
  const queue: number[] = [];
  const changes: ConcurrencyChange[] = [];
  const windows: number[] = [];
  const evolveLimits: number[] = [];
  const gaps: number[] = [];
  const weight = load.solveWeight ?? 1;
  const evolveSeconds = typeof load.evolveSeconds === 'number' ? (() => load.evolveSeconds) as (l: number, j: number) => number : load.evolveSeconds;
  let t = 0;
  let committed = 0;
  let jobs = 0;
  // Tasks done but waiting for an earlier one to commit no longer load the server.
  const inServer = () => weight * solve.slice(committed).filter((s) => s.finish > t).length + evolve.length;
  for (;;) {
    while (solve.length - committed < ctrl.limit('solve') && solve.length < load.tasks) {
      ctrl.started?.('solve', t);
      solve.push({ finish: t + load.solveSeconds(inServer() + weight, solve.length) });
    }
    while (evolve.length < ctrl.limit('evolve') && queue.length > 0) {
      ctrl.started?.('evolve', t);
      evolve.push({ finish: t + evolveSeconds(inServer() + 1, jobs), version: queue.shift()!, job: jobs++ });
    }
    const pending = [...solve.slice(committed).map((s) => s.finish), ...evolve.map((e) => e.finish)].filter((f) => f > t);
    if (pending.length === 0) break;
    t = Math.min(...pending);
    if (load.tokens) {
      for (let i = committed; i < solve.length; i++) if (solve[i]!.finish === t) ctrl.work?.(load.tokens.task(i), t);
    }
    for (let i = evolve.length - 1; i >= 0; i--) {
      if (evolve[i]!.finish > t) continue;
      if (load.tokens) ctrl.work?.(load.tokens.job(evolve[i]!.job), t);
      ctrl.produced?.('evolve', t);
      gaps.push(committed - evolve[i]!.version);
      ctrl.gapObserved?.(committed - evolve[i]!.version);
      evolve.splice(i, 1);
    }
    const before = committed;
    while (committed < solve.length && solve[committed]!.finish <= t) {
      committed++;
      ctrl.produced?.('solve', t);
      for (let j = 0; j < load.jobsPerTask; j++) {
        ctrl.enqueued?.('evolve', t);
        queue.push(committed);
      }
    }
    // Once per round of commits: a burst of commits at one instant is never split between periods.
    if (committed > before) {
      changes.push(...(ctrl.tick?.(t) ?? []));
      for (let k = before; k < committed; k++) {
        windows.push(ctrl.limit('solve'));
        evolveLimits.push(ctrl.limit('evolve'));
      }
    }
  }
  return { changes, windows, evolveLimits, gaps, end: t };
}
