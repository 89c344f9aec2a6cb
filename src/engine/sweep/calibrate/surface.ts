import type { SimulatedTarget } from './evaluate';
import { gram, invert, leastSquares, mulVec, pseudoInverse, quadForm, solve, symmetricEigen, type Matrix } from './stats';

/** One evaluation as the surface reads it: its point in the unit box of the bounds, and what every target came to. */
export interface SurfacePoint {
  readonly x: readonly number[];
  readonly sims: readonly SimulatedTarget[];
}

/** The local response surface around a fit (docs/calibration.md, "The statistics"). */
export interface Surface {
  /** ∂ sim_t / ∂ x_p in the unit box (targets × parameters), from a weighted least-squares plane over nearby evaluations. */
  readonly jacobian: Matrix;
  /** Each target's weight 1 / (se_target² + se_sim²) at the fit. */
  readonly weights: readonly number[];
  /** Residuals target − sim at the fit. */
  readonly residuals: readonly number[];
  /** Jᵀ W J: the χ² surface's half-Hessian in the unit box. */
  readonly information: Matrix;
  /** Its inverse (the parameters' covariance in the unit box), or null when it is singular. */
  readonly covariance: Matrix | null;
  /**
   * The inverse on the determined directions only (eigenvalue ≥ UNDETERMINED_EIGENVALUE): where the
   * targets say nothing, it says nothing either. The singular surface's covariance for the parameters it determines.
   */
  readonly pseudoCovariance: Matrix;
  /** Per parameter: it loads on a direction the targets do not determine (|loading| > UNDETERMINED_LOADING), so it has no standard error. */
  readonly undetermined: readonly boolean[];
  /** The Gauss–Newton step from the fit (on the determined directions when the surface is singular), and how much it is predicted to lower χ². */
  readonly step: readonly number[];
  readonly predictedDecrease: number;
  /** Evaluations the planes were fitted on. */
  readonly points: number;
  /** Those evaluations' offsets from the fit (unit box) and their weights in the planes' fit. */
  readonly plane: { readonly offsets: readonly (readonly number[])[]; readonly weights: readonly number[] };
  /**
   * Each target's noise: the standard deviation of one evaluation's value about its plane (the
   * planes' own scatter, pooled over the targets in units of each target's sampling error; see planeNoise).
   */
  readonly noise: readonly number[];
}

/**
 * A direction whose eigenvalue of Jᵀ W J (unit box) is below 1 is not determined by the targets:
 * moving the whole width of the box along it changes χ² by less than 1, so its standard error is
 * wider than the parameters' bounds — the bounds, not the targets, say where it lies.
 */
export const UNDETERMINED_EIGENVALUE = 1;
/**
 * A parameter whose loading on an undetermined direction exceeds 0.1 loses its standard error;
 * below that, the direction can move it by at most a tenth of its own spread, at most 0.029 of its
 * range for a direction spread uniformly over the box (sd 0.29), which its pseudo-inverse error leaves out.
 */
export const UNDETERMINED_LOADING = 0.1;

/** Evaluations this far from the fit (in the unit box, on every axis) shape the surface. */
export const RADIUS = 0.15;

/**
 * The χ² surface near the fit as Gauss–Newton sees it: each target's simulated value a plane in
 * the parameters (a least-squares fit over the evaluations within RADIUS of the fit, weighted
 * towards the nearest), so χ²(x) ≈ Σ w (r − J dx)², a quadratic whose Hessian's inverse is the
 * parameters' covariance. Common random numbers make the planes' slopes the parameters' effect,
 * not luck. Returns null when the nearby evaluations do not span every parameter.
 */
export function responseSurface(fit: readonly number[], points: readonly SurfacePoint[], targets: readonly { readonly accuracy: number; readonly se: number }[], atFit: readonly SimulatedTarget[]): Surface | null {
  const k = fit.length;
  const near = points.filter((p) => p.x.every((v, i) => Math.abs(v - fit[i]!) <= RADIUS + 1e-12));
  if (near.length < k + 1) return null;
  const offsets = near.map((p) => p.x.map((v, i) => v - fit[i]!));
  // Nearer evaluations count more: the plane is a local one.
  const w = offsets.map((dx) => 1 / (1 + (Math.max(...dx.map(Math.abs)) / 0.05) ** 2));
  const hat = planeOperator(offsets, w);
  if (!hat) return null;
  const values = targets.map((_, t) => near.map((p) => p.sims[t]!.value));
  const rows = offsets.map((dx) => [1, ...dx]);
  const jacobian: Matrix = [];
  for (const y of values) {
    const beta = leastSquares(rows, y, w);
    if (!beta) return null;
    jacobian.push(beta.slice(1));
  }
  const weights = targets.map((t, i) => 1 / (t.se ** 2 + simVariance(atFit[i]!)));
  const residuals = targets.map((t, i) => t.accuracy - atFit[i]!.value);
  const information = gram(jacobian, weights);
  const covariance = invert(information, 1e-9);
  const eigen = symmetricEigen(information);
  const pseudoCovariance = pseudoInverse(eigen, UNDETERMINED_EIGENVALUE);
  const undetermined = Array.from({ length: k }, (_, p) => eigen.values.some((l, e) => l < UNDETERMINED_EIGENVALUE && Math.abs(eigen.vectors[e]![p]!) > UNDETERMINED_LOADING));
  const { step, gain } = gaussNewton(jacobian, weights, residuals, covariance ?? pseudoCovariance);
  const noise = planeNoise(offsets, w, hat, values, atFit);
  return { jacobian, weights, residuals, information, covariance, pseudoCovariance, undetermined, step, predictedDecrease: gain, points: near.length, plane: { offsets, weights: w }, noise };
}

/**
 * The Gauss–Newton step for planes J, weights W and residuals r, and what it is predicted to gain,
 * gᵀ (JᵀWJ)⁻¹ g with g = JᵀW r. A singular JᵀWJ steps on its determined directions only. `inverse`
 * is that (pseudo-)inverse when the caller has it already (the surface computes it for the covariance).
 */
export function gaussNewton(jacobian: Matrix, weights: readonly number[], residuals: readonly number[], inverse = informationInverse(gram(jacobian, weights))): { step: number[]; gain: number } {
  const k = jacobian[0]?.length ?? 0;
  const g = Array.from({ length: k }, (_, p) => jacobian.reduce((s, row, t) => s + weights[t]! * row[p]! * residuals[t]!, 0));
  return { step: mulVec(inverse, g), gain: quadForm(inverse, g) };
}

/** (JᵀWJ)⁻¹, or its inverse on the determined directions when it is singular. */
function informationInverse(information: Matrix): Matrix {
  return invert(information, 1e-9) ?? pseudoInverse(symmetricEigen(information), UNDETERMINED_EIGENVALUE);
}

/**
 * The weighted least-squares operator of the planes: (XᵀΩX)⁻¹XᵀΩ for the design X = [1, dx], so a
 * target's values y give its plane's intercept and slopes as one product; null when the offsets do
 * not span every parameter.
 */
export function planeOperator(offsets: readonly (readonly number[])[], w: readonly number[]): Matrix | null {
  const rows = offsets.map((dx) => [1, ...dx]);
  const inv = invert(gram(rows, w), 1e-10);
  if (!inv) return null;
  return inv.map((row) => rows.map((r, n) => w[n]! * r.reduce((s, x, j) => s + row[j]! * x, 0)));
}

/**
 * Each target's noise about its plane. Under common random numbers a target's value moves in steps
 * (a task flips when a parameter crosses its draw), so the planes' scatter, not the run-to-run
 * error, is the noise their slopes carry. With about as many evaluations as the planes have
 * coefficients one target's scatter says little, so it is pooled: each target's noise is κ times
 * its own sampling error at the fit (both shrink as 1/√tasks), κ² the weighted residual sum of
 * squares over the targets that moved, in those units, over its expectation per unit variance
 * (tr((I−XH)ᵀΩ(I−XH)), exact for weighted least squares). No residual degree of freedom: κ = 1, the sampling error itself.
 */
function planeNoise(offsets: readonly (readonly number[])[], w: readonly number[], hat: Matrix, values: readonly (readonly number[])[], atFit: readonly SimulatedTarget[]): number[] {
  const rows = offsets.map((dx) => [1, ...dx]);
  const n = rows.length;
  // I − X H: what a value vector leaves about its plane.
  const resid = rows.map((r, q) => Array.from({ length: n }, (_, p) => (q === p ? 1 : 0) - r.reduce((s, x, j) => s + x * hat[j]![p]!, 0)));
  const expected = resid.reduce((s, row, q) => s + w[q]! * row.reduce((a, x) => a + x * x, 0), 0);
  let sum = 0;
  let pooled = 0;
  values.forEach((y, t) => {
    const se = Math.sqrt(simVariance(atFit[t]!));
    if (se === 0 || y.every((v) => v === y[0])) return;
    const e = resid.map((row) => row.reduce((s, x, p) => s + x * y[p]!, 0));
    sum += e.reduce((s, x, q) => s + w[q]! * x * x, 0) / se ** 2;
    pooled++;
  });
  const kappa = pooled > 0 && expected > 1e-9 ? Math.sqrt(sum / (pooled * expected)) : 1;
  return atFit.map((s) => kappa * Math.sqrt(simVariance(s)));
}

/** A simulated value's own sampling variance (0 when its niche had no task). */
export function simVariance(s: SimulatedTarget): number {
  return s.n > 0 && Number.isFinite(s.se) ? s.se ** 2 : 0;
}

/**
 * Where the surface puts the other parameters when parameter `i` is moved by `delta` (unit box):
 * the least of the quadratic χ² with x_i held, so a profile follows the valley instead of slicing
 * across it. The others' move is returned; a singular sub-problem leaves them at the fit.
 */
export function ridgeStep(s: Surface, i: number, delta: number): number[] {
  const k = s.information.length;
  const others = Array.from({ length: k }, (_, j) => j).filter((j) => j !== i);
  const out = new Array<number>(k).fill(0);
  out[i] = delta;
  if (others.length === 0) return out;
  const sub = others.map((a) => others.map((b) => s.information[a]![b]!));
  const rhs = others.map((a) => s.jacobian.reduce((sum, row, t) => sum + s.weights[t]! * row[a]! * (s.residuals[t]! - row[i]! * delta), 0));
  const move = solve(sub, rhs, 1e-9);
  if (move) others.forEach((j, n) => { out[j] = move[n]!; });
  return out;
}

/**
 * A profile point re-fitted: parameter `i` held where it is, the others moved by one Gauss–Newton
 * step from the point's own simulated values (the residuals there, the fit's slopes), at most a
 * quarter of a range on any axis. The valley the fit's surface predicts is a linearization; this
 * step corrects it with what the point itself gave. Returns the new point (unit box).
 */
export function refitOthers(s: Surface, x: readonly number[], i: number, sims: readonly SimulatedTarget[], targets: readonly { readonly accuracy: number }[]): number[] {
  const others = x.map((_, j) => j).filter((j) => j !== i);
  if (others.length === 0) return [...x];
  const sub = others.map((a) => others.map((b) => s.information[a]![b]!));
  const rhs = others.map((a) => s.jacobian.reduce((sum, row, t) => sum + s.weights[t]! * row[a]! * (targets[t]!.accuracy - sims[t]!.value), 0));
  const move = solve(sub, rhs, 1e-9);
  if (!move) return [...x];
  const scale = Math.min(1, 0.25 / Math.max(1e-12, ...move.map(Math.abs)));
  const out = [...x];
  others.forEach((j, n) => { out[j] = Math.min(1, Math.max(0, x[j]! + scale * move[n]!)); });
  return out;
}

/**
 * Leave target `j` out and refit on the surface: one Gauss–Newton step from the fit over the other
 * targets, with a weak prior that keeps a parameter only `j` determined where the search started
 * (a normal at `start`, sd 0.29 of its range — the sd of a uniform over its bounds). Returns the
 * refitted point's move and its covariance (unit box).
 */
export function leaveOneOut(s: Surface, j: number, fit: readonly number[], start: readonly number[]): { readonly step: number[]; readonly covariance: Matrix } {
  const k = fit.length;
  const w = s.weights.map((x, t) => (t === j ? 0 : x));
  const info = gram(s.jacobian, w);
  const priorPrecision = 12;
  for (let p = 0; p < k; p++) info[p]![p]! += priorPrecision;
  const g = Array.from({ length: k }, (_, p) => s.jacobian.reduce((sum, row, t) => sum + w[t]! * row[p]! * s.residuals[t]!, 0) + priorPrecision * (start[p]! - fit[p]!));
  const covariance = invert(info, 1e-12)!;
  return { step: mulVec(covariance, g), covariance };
}

/**
 * Target `t`'s simulated value at `x` as its plane says (the value at the fit plus J·dx, within
 * [0, 1]), or null when `x` lies outside the region the planes were fitted over (RADIUS on some
 * axis): there the plane would extrapolate, and only an evaluation says.
 */
export function planeValue(s: Surface, t: number, fit: readonly number[], x: readonly number[], atFit: SimulatedTarget): SimulatedTarget | null {
  if (x.some((v, p) => Math.abs(v - fit[p]!) > RADIUS + 1e-12)) return null;
  const value = atFit.value + s.jacobian[t]!.reduce((sum, slope, p) => sum + slope * (x[p]! - fit[p]!), 0);
  return { value: Math.min(1, Math.max(0, value)), n: atFit.n, se: atFit.se };
}

/** The variance of a plane's prediction J·dx under a covariance of dx. */
export function predictionVariance(gradient: readonly number[], covariance: Matrix): number {
  return Math.max(0, quadForm(covariance, gradient));
}
