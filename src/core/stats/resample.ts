import type { Rng } from '../rng';

// Resampling statistics for comparing two systems on the same tasks: a stratified bootstrap for the
// interval, a sign-flip (paired) or label (unpaired) permutation test for the p-value, Holm's step-down
// correction across several comparisons. Every draw comes from the Rng passed in, so the same seed gives
// the same interval and p-value, byte for byte.

/** Resamples of the bootstrap and draws of the permutation tests (documented in docs/reports.md). */
export const BOOTSTRAP_RESAMPLES = 2000;
export const PERMUTATIONS = 10000;

/** An interval: its lower and upper bound. */
export interface Interval { readonly lo: number; readonly hi: number }

/** The `q` quantile (0..1) of sorted values, interpolated linearly between order statistics (R's type 7). */
export function quantileSorted(sorted: ArrayLike<number>, q: number): number {
  const n = sorted.length;
  if (n === 0) return NaN;
  const h = (n - 1) * q;
  const i = Math.floor(h);
  const j = Math.min(n - 1, i + 1);
  return sorted[i]! + (h - i) * (sorted[j]! - sorted[i]!);
}

/** Percentile interval of `level` (e.g. 0.95) from bootstrap statistics. */
function percentile(stats: Float64Array, level: number): Interval {
  stats.sort();
  return { lo: quantileSorted(stats, (1 - level) / 2), hi: quantileSorted(stats, 1 - (1 - level) / 2) };
}

const sum = (xs: ArrayLike<number>) => { let s = 0; for (let i = 0; i < xs.length; i++) s += xs[i]!; return s; };

/**
 * Percentile interval of the mean paired difference, resampling the differences with replacement
 * within each stratum (a seed's tasks) so every resample keeps each seed's number of tasks: the
 * seeds' streams are fixed by design, the tasks within them are the sample.
 */
export function stratifiedBootstrap(strata: readonly ArrayLike<number>[], rng: Rng, level = 0.95, resamples = BOOTSTRAP_RESAMPLES): Interval {
  const n = strata.reduce((a, s) => a + s.length, 0);
  if (n === 0) return { lo: NaN, hi: NaN };
  const stats = new Float64Array(resamples);
  for (let b = 0; b < resamples; b++) {
    let total = 0;
    for (const s of strata) for (let i = 0; i < s.length; i++) total += s[rng.int(s.length)]!;
    stats[b] = total / n;
  }
  return percentile(stats, level);
}

/**
 * Two-sided p-value of a paired sign-flip test: under "no difference" each paired difference is as
 * likely negative as positive, so flipping signs at random gives the null distribution of the mean.
 * p = (1 + draws at least as extreme) / (1 + draws): never 0, exact in distribution (Phipson & Smyth 2010).
 * Each 32-bit draw gives 32 signs.
 */
export function signFlipTest(diffs: ArrayLike<number>, rng: Rng, permutations = PERMUTATIONS): number {
  const n = diffs.length;
  if (n === 0) return 1;
  const observed = Math.abs(sum(diffs));
  // A float sum of the same terms in another order may differ in its last bits: count ties as extreme.
  const tol = 1e-9 * Math.max(1, observed);
  let extreme = 0;
  for (let b = 0; b < permutations; b++) {
    let s = 0;
    let bits = 0;
    for (let i = 0; i < n; i++) {
      if (i % 32 === 0) bits = Math.floor(rng.next() * 4294967296);
      s += bits & 1 ? diffs[i]! : -diffs[i]!;
      bits >>>= 1;
    }
    if (Math.abs(s) >= observed - tol) extreme++;
  }
  return (1 + extreme) / (1 + permutations);
}

/** Percentile interval of mean(a) − mean(b), each sample resampled on its own (unpaired). */
export function unpairedBootstrap(a: ArrayLike<number>, b: ArrayLike<number>, rng: Rng, level = 0.95, resamples = BOOTSTRAP_RESAMPLES): Interval {
  if (a.length === 0 || b.length === 0) return { lo: NaN, hi: NaN };
  const stats = new Float64Array(resamples);
  for (let r = 0; r < resamples; r++) {
    let sa = 0;
    for (let i = 0; i < a.length; i++) sa += a[rng.int(a.length)]!;
    let sb = 0;
    for (let i = 0; i < b.length; i++) sb += b[rng.int(b.length)]!;
    stats[r] = sa / a.length - sb / b.length;
  }
  return percentile(stats, level);
}

/** Two-sided p-value of a label permutation test of mean(a) − mean(b): the pooled tasks dealt at random into two groups of the same sizes. */
export function labelPermutationTest(a: ArrayLike<number>, b: ArrayLike<number>, rng: Rng, permutations = PERMUTATIONS): number {
  const na = a.length;
  const nb = b.length;
  if (na === 0 || nb === 0) return 1;
  const pooled = Float64Array.from([...Array.from(a), ...Array.from(b)]);
  const total = sum(pooled);
  const diff = (sa: number) => sa / na - (total - sa) / nb;
  const observed = Math.abs(diff(sum(a)));
  const tol = 1e-9 * Math.max(1, observed);
  let extreme = 0;
  for (let r = 0; r < permutations; r++) {
    // A partial Fisher–Yates shuffle: the first na places are group a.
    let sa = 0;
    for (let i = 0; i < na; i++) {
      const j = i + rng.int(pooled.length - i);
      const t = pooled[i]!; pooled[i] = pooled[j]!; pooled[j] = t;
      sa += pooled[i]!;
    }
    if (Math.abs(diff(sa)) >= observed - tol) extreme++;
  }
  return (1 + extreme) / (1 + permutations);
}

/**
 * Holm's step-down correction of several p-values (same order out as in): the smallest is multiplied
 * by m, the next by m − 1, …, each kept at least as large as the one before and at most 1. It controls
 * the family-wise error rate without assuming the comparisons independent.
 */
export function holm(ps: readonly number[]): number[] {
  const m = ps.length;
  const order = ps.map((p, i) => ({ p, i })).sort((x, y) => x.p - y.p || x.i - y.i);
  const out = new Array<number>(m);
  let running = 0;
  order.forEach(({ p, i }, k) => {
    running = Math.max(running, Math.min(1, (m - k) * p));
    out[i] = running;
  });
  return out;
}
