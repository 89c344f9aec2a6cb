import { predictedStepMs, type LatencyProfile } from '../../llm/latency-profiles';
import { maxTokensPerSecond } from '../../llm/server-capacity';
import type { PlannedRun } from './plan';

/**
 * A run's speedup alone at a window of tasks in flight, under the policy `ablate --deadline` gives
 * windowed runs (staleness `guarded`, evolve timing `when-ready`): tasks per virtual hour over the
 * same run at in-flight 1, as docs/concurrency.md measures them on `hard` (600 tasks, 3 seeds; window
 * 2 is the geometric mean of 1 and 4's).
 */
export const WINDOW_SPEEDUP: ReadonlyArray<readonly [window: number, speedup: number]> = [
  [1, 1], [2, 1.94], [4, 3.76], [8, 6.07], [16, 8.57], [32, 13.11],
];

/** The settings a windowed run of a deadline sweep gets, besides its window (the async bench's cheapest in accuracy). */
export const DEADLINE_RUN_SETTINGS = { staleness: { policy: 'guarded' }, evolveTiming: 'when-ready' } as const;

/** One run as the deadline model sees it: plan's prediction alone at in-flight 1. */
export interface RunWork {
  readonly key: string;
  readonly hours: number;
  readonly calls: number;
  readonly promptTokens: number;
  readonly completionTokens: number;
  /** Its token-weighted decode context (plan's `decodeContext`); absent: a mean call's prompt plus half its answer. */
  readonly decodeContext?: number;
}

/** The window chosen for one run, and when the model says it ends. */
export interface WindowChoice {
  readonly key: string;
  readonly window: number;
  readonly predictedHours: number;
}

/** What `chooseWindows` decided. */
export interface DeadlineChoice {
  readonly deadlineHours: number;
  /** The model's hours for the sweep with these windows. */
  readonly predictedHours: number;
  /** False when no choice of windows meets the deadline; `predictedHours` is then the shortest found. */
  readonly fits: boolean;
  readonly choices: readonly WindowChoice[];
}

/** Run work from plan's predictions, keyed by `key(run)`. */
export function runWork(runs: readonly PlannedRun[], key: (r: PlannedRun) => string): RunWork[] {
  return runs.map((r) => ({
    key: key(r), hours: r.virtualHours, calls: r.calls, promptTokens: r.promptTokens, completionTokens: r.completionTokens,
    decodeContext: r.decodeContext,
  }));
}

interface Fluid {
  readonly key: string;
  /** Output tokens/s alone at its window, sequences it keeps decoding, their mean context, and the step time alone. */
  readonly rate: number;
  readonly seqs: number;
  readonly ctx: number;
  readonly stepAlone: number;
  left: number;
  end?: number;
}

/**
 * The sweep's virtual hours with every run started at once at its window, by a fluid model of one
 * batching server: a run alone makes its output at plan's pace times the window's speedup, keeping
 * (its output rate × step time) sequences decoding; sharing, every step takes the time of the whole
 * batch (predictedStepMs over every run's sequences and their context), so each run slows by its step
 * alone over the shared step; the batch's output never passes the profile's maximum for its request
 * shape, and with the KV cache full the sequences that fit decode, the critical path first when
 * `priorities` is on (else every run alike). Advanced from one run's end to the next.
 */
export function predictSweep(profile: LatencyProfile, work: readonly RunWork[], windows: ReadonlyMap<string, number>, priorities: boolean): Map<string, number> {
  const runs = work.filter((w) => w.completionTokens > 0 && w.hours > 0).map((w) => fluid(profile, w, windows.get(w.key) ?? 1));
  let now = 0;
  for (;;) {
    const open = runs.filter((r) => r.end === undefined);
    if (open.length === 0) break;
    const rates = sharedRates(profile, open, priorities);
    let dt = Infinity;
    open.forEach((r, i) => { if (rates[i]! > 0) dt = Math.min(dt, r.left / rates[i]!); });
    if (!Number.isFinite(dt)) break;
    now += dt;
    open.forEach((r, i) => {
      r.left -= rates[i]! * dt;
      if (r.left <= 1e-6 * r.rate) r.end = now;
    });
  }
  return new Map(runs.map((r) => [r.key, (r.end ?? now) / 3600]));
}

function fluid(profile: LatencyProfile, w: RunWork, window: number): Fluid {
  const perCall = { prompt: w.promptTokens / Math.max(1, w.calls), completion: w.completionTokens / Math.max(1, w.calls) };
  // What each of its decoding sequences reads per step: weighted by tokens generated, the long answers
  // (the longest contexts, in the batch the longest) count by their length.
  const ctx = w.decodeContext ?? perCall.prompt + perCall.completion / 2;
  const rate = (w.completionTokens / (w.hours * 3600)) * speedup(window);
  // Sequences decoding at once: rate × step time / 1000, with the step at that many sequences (a few rounds converge).
  let seqs = 1;
  const step = (n: number) => (profile.kind === 'batch' ? predictedStepMs(profile, n, ctx) : 1000 / (profile.tokensPerSecond || 1));
  for (let i = 0; i < 8; i++) seqs = (rate * step(seqs)) / 1000;
  return { key: w.key, rate, seqs, ctx, stepAlone: step(seqs), left: w.completionTokens };
}

/** Each open run's output tokens/s while these runs share the server. */
function sharedRates(profile: LatencyProfile, open: readonly Fluid[], priorities: boolean): number[] {
  if (profile.kind !== 'batch') return open.map((r) => r.rate);
  const seqs = open.reduce((a, r) => a + r.seqs, 0);
  const context = open.reduce((a, r) => a + r.seqs * r.ctx, 0);
  // The KV cache holds this share of the sequences; the others wait (and priorities say whose wait).
  const fit = Math.min(1, profile.kvCacheTokens / Math.max(1, context), profile.maxRunning / Math.max(1, seqs));
  const step = predictedStepMs(profile, seqs * fit, context / Math.max(1e-9, seqs));
  const slowed = open.map((r) => r.rate * Math.min(1, r.stepAlone / step));
  const max = maxTokensPerSecond(profile, { meanPromptTokens: 0, meanCompletionTokens: 1, meanDecodeContext: context / Math.max(1e-9, seqs) }) ?? Infinity;
  const cap = Math.min(max, slowed.reduce((a, x) => a + x, 0) * fit);
  const total = slowed.reduce((a, x) => a + x, 0);
  if (total <= cap) return slowed;
  if (!priorities) return slowed.map((x) => (x * cap) / total);
  // Critical path first: the runs with the most output left take their full rate until the capacity is spent.
  const order = open.map((r, i) => ({ i, left: r.left / Math.max(1e-9, slowed[i]!) })).sort((a, b) => b.left - a.left);
  const out = open.map(() => 0);
  let room = cap;
  for (const { i } of order) {
    out[i] = Math.min(slowed[i]!, room);
    room -= out[i]!;
  }
  return out;
}

/** Speedup at a window (the table's; between rows, the row below's). */
export function speedup(window: number): number {
  let s = 1;
  for (const [w, x] of WINDOW_SPEEDUP) if (window >= w) s = x;
  return s;
}

/**
 * `ablate --deadline`: the smallest in-flight window per run that lets the sweep end by the deadline,
 * by the fluid model. Every run starts at 1; while the sweep ends late, the run that ends last moves to
 * the next window of WINDOW_SPEEDUP. When that run is at the largest window already, no window meets the
 * deadline: `fits` is false and `predictedHours` the shortest the model found.
 */
export function chooseWindows(profile: LatencyProfile, work: readonly RunWork[], deadlineHours: number, priorities: boolean): DeadlineChoice {
  const windows = new Map(work.map((w) => [w.key, 1]));
  const largest = WINDOW_SPEEDUP.at(-1)![0];
  const next = (w: number) => WINDOW_SPEEDUP.find(([x]) => x > w)?.[0];
  let ends = predictSweep(profile, work, windows, priorities);
  let best = { windows: new Map(windows), ends };
  for (let guard = 0; guard < work.length * WINDOW_SPEEDUP.length; guard++) {
    const hours = Math.max(0, ...ends.values());
    if (hours < Math.max(0, ...best.ends.values())) best = { windows: new Map(windows), ends };
    if (hours <= deadlineHours) return choice(deadlineHours, windows, ends, true);
    const last = [...ends].sort((a, b) => b[1] - a[1])[0]![0];
    const w = windows.get(last)!;
    if (w >= largest) break;
    windows.set(last, next(w)!);
    ends = predictSweep(profile, work, windows, priorities);
  }
  const hours = Math.max(0, ...ends.values());
  if (hours < Math.max(0, ...best.ends.values())) best = { windows: new Map(windows), ends };
  return choice(deadlineHours, best.windows, best.ends, false);
}

function choice(deadlineHours: number, windows: ReadonlyMap<string, number>, ends: ReadonlyMap<string, number>, fits: boolean): DeadlineChoice {
  return {
    deadlineHours, fits, predictedHours: Math.max(0, ...ends.values()),
    choices: [...windows].map(([key, window]) => ({ key, window, predictedHours: ends.get(key) ?? 0 })),
  };
}
