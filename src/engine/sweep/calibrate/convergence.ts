import { createRng } from '../../../core/rng';
import type { Convergence, FitParameter } from './fit-types';
import { compareVectors, round9 } from './fit-analysis';
import { gaussNewton, planeOperator, type Surface } from './surface';
import { mulVec } from './stats';

export const CONVERGENCE_RULE =
  'the step the response surface predicts from the fit gains less in χ² than noise alone would make it predict at a true least ' +
  '(the 95th percentile of a parametric bootstrap of the planes), and no evaluation after the search is further below the fit than that noise allows (never counting a drop under 1)';

/** Replications of the bootstrap: the 95th percentile of 1,000 is within about ±1 percentile point. */
export const CONVERGENCE_REPLICATIONS = 1000;
/** The rule's false-alarm rate at a true least: the two parts together are judged at this level. */
const LEVEL = 0.95;

/** An evaluation after the search, for the rule: its point (unit box and values) and its χ². */
export interface LaterEvaluation {
  readonly x: readonly number[];
  readonly values: readonly number[];
  readonly chi2: number;
}

/** What the rule reads. */
export interface ConvergenceInput {
  readonly simplexCollapsed: boolean;
  readonly surface: Surface | null;
  /** The fit: its point in the unit box, its values, its χ². */
  readonly x: readonly number[];
  readonly values: readonly number[];
  readonly chi2: number;
  readonly targets: readonly { readonly accuracy: number }[];
  readonly after: readonly LaterEvaluation[];
  readonly parameters: readonly FitParameter[];
  /** Seeds the bootstrap (the calibration's seeds): the same calibration, the same verdict to the bit. */
  readonly seed: string;
  readonly replications?: number;
}

/**
 * The convergence rule (CONVERGENCE_RULE, docs/calibration.md "Convergence rule"). The null is the
 * surface's own world with the fit at its least: each target's true value a plane with the fitted
 * slopes, its residual at the fit r₀ along r − J·step (so JᵀW r₀ = 0, the true gain zero) and as
 * large as the misfit the χ² at the fit shows (less the fit's own noise): that misfit, which the
 * form cannot close, is what turns slope noise into predicted gain.
 * Each replication draws every evaluation's value about its plane with the surface's noise, refits
 * the planes over the same offsets and weights, and recomputes the predicted gain and the largest
 * drop of a later evaluation below the fit. The two parts are judged together at 95 %: each
 * replication's larger percentile (among the replications, for either statistic) gives the level q
 * whose two quantiles are the thresholds, so a fit at a true least is called unconverged about 5 %
 * of the time (0–11 % over the synthetic designs docs/calibration.md lists: the null is built from estimates).
 */
export function convergenceOf(c: ConvergenceInput): Convergence {
  const lowest = [...c.after].sort((a, b) => a.chi2 - b.chi2 || compareVectors(a.values, b.values))[0];
  const drop = lowest ? c.chi2 - lowest.chi2 : null;
  const base = { simplexCollapsed: c.simplexCollapsed, rule: CONVERGENCE_RULE };
  if (!c.surface) {
    return { ...base, met: false, predictedDecrease: null, gainThreshold: null, drop: drop === null ? null : round9(drop), dropThreshold: null, ...better(c, lowest, drop !== null && drop > 1) };
  }
  const gain = c.surface.predictedDecrease;
  const t = nullThresholds(c.surface, c.targets, c.after.map((e) => e.x.map((v, i) => v - c.x[i]!)), c.seed, c.replications ?? CONVERGENCE_REPLICATIONS);
  // Never stricter than a χ² of 1, what the objective resolves at all (a noiseless surface's null is 0).
  const gainThreshold = Math.max(1, t.gain);
  const dropThreshold = Math.max(1, t.drop ?? 0);
  const isBetter = drop !== null && drop > dropThreshold;
  return {
    ...base, met: gain < gainThreshold && !isBetter, predictedDecrease: round9(gain), gainThreshold: round9(gainThreshold),
    drop: drop === null ? null : round9(drop), dropThreshold: drop === null ? null : round9(dropThreshold), ...better(c, lowest, isBetter),
  };
}

/** The better point, named by the parameter it moved most (in its range). */
function better(c: ConvergenceInput, lowest: LaterEvaluation | undefined, isBetter: boolean): Pick<Convergence, 'betterPoint'> {
  if (!lowest || !isBetter) return {};
  const moved = c.parameters.map((p, i) => ({ i, d: Math.abs(lowest.values[i]! - c.values[i]!) / (p.hi - p.lo) })).sort((a, b) => b.d - a.d)[0]!.i;
  return { betterPoint: { name: c.parameters[moved]!.name, value: lowest.values[moved]!, chi2: lowest.chi2 } };
}

/**
 * The bootstrap: the thresholds of the predicted gain and of the largest later drop below the fit
 * (null with no later evaluation) under the null world described at convergenceOf.
 */
export function nullThresholds(s: Surface, targets: readonly { readonly accuracy: number }[], later: readonly (readonly number[])[], seed: string, replications: number): { gain: number; drop: number | null } {
  const hat = planeOperator(s.plane.offsets, s.plane.weights)!;
  const k = s.step.length;
  // The residual at the surface's own least (JᵀW r₀ = 0: the true gain zero) ...
  const perp = s.residuals.map((r, t) => r - s.jacobian[t]!.reduce((a, slope, p) => a + slope * s.step[p]!, 0));
  // ... of the size of the χ² at the fit less what the fit's own noise adds on average, not less the predicted gain —
  // under the null that gain is noise too, and taking it out would make the null smallest exactly when the gain is large.
  const norm = (v: readonly number[]) => v.reduce((a, x, t) => a + s.weights[t]! * x * x, 0);
  const misfit = Math.max(norm(perp), norm(s.residuals) - s.weights.reduce((a, w, t) => a + w * s.noise[t]! ** 2, 0));
  const scale = norm(perp) > 0 ? Math.sqrt(misfit / norm(perp)) : 1;
  const r0 = perp.map((x) => x * scale);
  const truthAtFit = targets.map((t, i) => t.accuracy - r0[i]!);
  // Every point drawn once a replication: a later evaluation that is also a plane's point (the design) is the same draw in both roles.
  const points: (readonly number[])[] = [];
  const index = new Map<string, number>();
  const at = (dx: readonly number[]) => {
    const key = dx.join(',');
    if (!index.has(key)) { index.set(key, points.length); points.push(dx); }
    return index.get(key)!;
  };
  const planeIdx = s.plane.offsets.map(at);
  const fitIdx = at(new Array<number>(k).fill(0));
  const laterIdx = later.map(at);
  const mean = points.map((dx) => truthAtFit.map((m, t) => m + s.jacobian[t]!.reduce((a, slope, p) => a + slope * dx[p]!, 0)));
  const rng = createRng(`convergence:${seed}`);
  const gains: number[] = [];
  const drops: number[] = [];
  const chi2 = (v: readonly number[]) => v.reduce((a, x, t) => a + s.weights[t]! * (targets[t]!.accuracy - x) ** 2, 0);
  for (let b = 0; b < replications; b++) {
    const drawn = mean.map((m) => m.map((x, t) => x + s.noise[t]! * rng.normal()));
    const jacobian = targets.map((_, t) => mulVec(hat, planeIdx.map((i) => drawn[i]![t]!)).slice(1));
    const residuals = targets.map((tg, t) => tg.accuracy - drawn[fitIdx]![t]!);
    gains.push(gaussNewton(jacobian, s.weights, residuals).gain);
    if (laterIdx.length) drops.push(chi2(drawn[fitIdx]!) - Math.min(...laterIdx.map((i) => chi2(drawn[i]!))));
  }
  return jointQuantiles(gains, drops.length ? drops : null);
}

/**
 * Thresholds for two statistics judged together at LEVEL: each replication's larger percentile
 * (its rank among the replications of either statistic) gives the level q met by LEVEL of them; the
 * thresholds are the statistics' own quantiles at q. With one statistic, q is LEVEL itself.
 */
export function jointQuantiles(a: readonly number[], b: readonly number[] | null): { gain: number; drop: number | null } {
  const sa = [...a].sort((x, y) => x - y);
  const quantile = (sorted: readonly number[], q: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
  if (!b) return { gain: quantile(sa, LEVEL), drop: null };
  const sb = [...b].sort((x, y) => x - y);
  const rank = (sorted: readonly number[], x: number) => upperBound(sorted, x) / sorted.length;
  const worst = a.map((x, i) => Math.max(rank(sa, x), rank(sb, b[i]!))).sort((x, y) => x - y);
  const q = quantile(worst, LEVEL);
  return { gain: quantile(sa, q), drop: quantile(sb, q) };
}

/** How many of `sorted` are ≤ x. */
function upperBound(sorted: readonly number[], x: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid]! <= x) lo = mid + 1; else hi = mid;
  }
  return lo;
}
