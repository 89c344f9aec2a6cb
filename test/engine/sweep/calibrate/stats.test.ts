import { describe, expect, it } from 'vitest';
import { chi2PValue, cholesky, invert, leastSquares, pseudoInverse, symmetricEigen } from '../../../../src/engine/sweep/calibrate/stats';
import { planeValue, refitOthers, responseSurface, ridgeStep, type SurfacePoint } from '../../../../src/engine/sweep/calibrate/surface';
import { convergenceOf } from '../../../../src/engine/sweep/calibrate/convergence';
import { createRng } from '../../../../src/core/rng';
import { figure } from '../../../../src/engine/sweep/calibrate/prediction';
import { profileInterval, profilePoints } from '../../../../src/engine/sweep/calibrate/fit-analysis';

describe('calibration statistics', () => {
  it('χ² p-values match the tables', () => {
    // Known quantiles: P(χ²_1 ≥ 3.841) = 0.05, P(χ²_3 ≥ 9.22) ≈ 0.0265, P(χ²_10 ≥ 18.307) = 0.05, P(χ²_2 ≥ 0) = 1.
    expect(chi2PValue(3.841, 1)).toBeCloseTo(0.05, 3);
    expect(chi2PValue(9.22, 3)).toBeCloseTo(0.0265, 3);
    expect(chi2PValue(18.307, 10)).toBeCloseTo(0.05, 3);
    expect(chi2PValue(0, 2)).toBe(1);
    expect(chi2PValue(200, 4)).toBeLessThan(1e-30);
    expect(Number.isNaN(chi2PValue(1, 0))).toBe(true);
  });

  it('inverts, factors and solves small systems; a singular one is null', () => {
    const a = [[4, 2], [2, 3]];
    const inv = invert(a)!;
    expect(inv[0]![0]).toBeCloseTo(0.375);
    expect(inv[0]![1]).toBeCloseTo(-0.25);
    const l = cholesky(a);
    expect(l[0]![0]! ** 2).toBeCloseTo(4);
    expect(l[1]![0]! * l[0]![0]!).toBeCloseTo(2);
    expect(invert([[1, 2], [2, 4]])).toBeNull();
    const beta = leastSquares([[1, 0], [1, 1], [1, 2]], [1, 3, 5], [1, 1, 1])!;
    expect(beta[0]).toBeCloseTo(1);
    expect(beta[1]).toBeCloseTo(2);
  });

  it('the response surface gives the covariance of a linear model exactly, and its valley', () => {
    // Two targets, sim = A x with known slopes; σ = 0.1 each: the covariance is (AᵀWA)⁻¹.
    const slopes = [[0.5, 0.1], [0.2, 0.4]];
    const sim = (x: readonly number[]) => slopes.map((s) => ({ value: 0.5 + s[0]! * (x[0]! - 0.5) + s[1]! * (x[1]! - 0.5), n: 100, se: 0 }));
    const pts = [[0.5, 0.5], [0.45, 0.5], [0.55, 0.5], [0.5, 0.45], [0.5, 0.55]].map((x) => ({ x, sims: sim(x) }));
    const targets = [{ accuracy: 0.5, se: 0.1 }, { accuracy: 0.5, se: 0.1 }];
    const s = responseSurface([0.5, 0.5], pts, targets, sim([0.5, 0.5]))!;
    const info = [[(0.25 + 0.04) * 100, (0.05 + 0.08) * 100], [(0.05 + 0.08) * 100, (0.01 + 0.16) * 100]];
    const cov = invert(info)!;
    expect(s.covariance![0]![0]).toBeCloseTo(cov[0]![0]!, 6);
    expect(s.covariance![0]![1]).toBeCloseTo(cov[0]![1]!, 6);
    expect(s.predictedDecrease).toBeCloseTo(0, 9);
    // Along the valley of x0, x1 moves to keep χ² least: −info01/info11 per unit.
    expect(ridgeStep(s, 0, 0.1)[1]).toBeCloseTo(-0.1 * info[0]![1]! / info[1]![1]!, 6);
    // A linear model's plane gives the value anywhere it was fitted; beyond that region it says nothing.
    expect(planeValue(s, 1, [0.5, 0.5], [0.6, 0.4], sim([0.5, 0.5])[1]!)!.value).toBeCloseTo(sim([0.6, 0.4])[1]!.value, 9);
    expect(planeValue(s, 1, [0.5, 0.5], [0.7, 0.5], sim([0.5, 0.5])[1]!)).toBeNull();
    // A profile point off the valley (x0 held at 0.6, x1 left at 0.5): one step from its own values lands on the valley.
    const off = [0.6, 0.5];
    const refit = refitOthers(s, off, 0, sim(off), targets);
    expect(refit[0]).toBe(0.6);
    expect(refit[1]).toBeCloseTo(0.5 + ridgeStep(s, 0, 0.1)[1]!, 9);
  });

  it('a predicted figure carries both the parameters\' spread and the run noise over the seeds to be averaged', () => {
    const f = figure({ centre: [0.5, 0.6, 0.7], draws: [0.03, -0.04] }, 4, [0, 1]);
    expect(f.mean).toBeCloseTo(0.6);
    // Three seeds: their sd (0.1) widened by t(2)/1.96; two draws: their RMS widened by t(2)/1.96.
    expect(f.sdRun).toBeCloseTo(0.1 * 4.303 / 1.96, 3);
    expect(f.sdParameters).toBeCloseTo(Math.sqrt((0.0009 + 0.0016) / 2) * 4.303 / 1.96, 3);
    expect(f.hi - f.mean).toBeCloseTo(1.96 * Math.sqrt(f.sdParameters ** 2 + f.sdRun ** 2 / 4), 3);
  });

  it('a profile explores both sides of an inner fit; a side that reaches a bound hands its other points to the far side', () => {
    const inner = profilePoints(null, [0.5, 0.5], 0, 0.05, 4).map((x) => x[0]!);
    expect(inner).toEqual([0.425, 0.35, 0.575, 0.65].map((v) => expect.closeTo(v, 9)));
    // At 0 (a form parameter's default, where a search starts), nothing lies below: four points above, none clamped back to 0.
    const atLow = profilePoints(null, [0, 0.5], 0, 0.05, 4).map((x) => x[0]!);
    expect(atLow).toEqual([0.075, 0.15, 0.225, 0.3].map((v) => expect.closeTo(v, 9)));
    const atHigh = profilePoints(null, [0.5, 1], 1, 0.05, 4).map((x) => x[1]!);
    expect(atHigh).toEqual([0.925, 0.85, 0.775, 0.7].map((v) => expect.closeTo(v, 9)));
    // Near a bound: one point at it, the other goes on above; the others follow the valley for the move actually made.
    const s = responseSurface([0.04, 0.5], [[0.04, 0.5], [0.09, 0.5], [0.14, 0.5], [0.04, 0.45], [0.04, 0.55]].map((x) => ({ x, sims: [{ value: x[0]! + x[1]!, n: 100, se: 0 }] })), [{ accuracy: 0.54, se: 0.1 }], [{ value: 0.54, n: 100, se: 0 }])!;
    const near = profilePoints(s, [0.04, 0.5], 0, 0.05, 4);
    expect(near.map((x) => x[0]!)).toEqual([0, 0.115, 0.19, 0.265].map((v) => expect.closeTo(v, 9)));
    // sim = x0 + x1 held at the target: x1 moves opposite to x0 by what x0 really moved (0.04 down to the bound, not 0.075).
    expect(near[0]![1]).toBeCloseTo(0.54, 9);
    // Its interval is open at the bound and closed where the profile rises 3.84.
    const prof = profileInterval([{ value: 0, chi2: 10 }, { value: 0.1, chi2: 11 }, { value: 0.2, chi2: 12 }, { value: 0.3, chi2: 15 }, { value: 0.4, chi2: 20 }], 0);
    expect(prof.open).toEqual([true, false]);
    expect(prof.interval[1]).toBeCloseTo(0.3 - (15 - 13.84) / 3 * 0.1, 6);
  });

  it('decomposes a symmetric matrix, and inverts it only on the directions kept', () => {
    const e = symmetricEigen([[3, 1, 0], [1, 3, 0], [0, 0, 0.5]]);
    expect(e.values).toEqual([4, 2, 0.5].map((v) => expect.closeTo(v, 12)));
    expect(Math.abs(e.vectors[0]![0]!)).toBeCloseTo(Math.SQRT1_2, 12);
    expect(e.vectors[2]![2]! ** 2).toBeCloseTo(1, 12);
    // Above a floor of 1 the third direction is left out: the inverse on the first two only.
    const p = pseudoInverse(e, 1);
    const full = invert([[3, 1], [1, 3]])!;
    expect(p[0]![0]).toBeCloseTo(full[0]![0]!, 12);
    expect(p[0]![1]).toBeCloseTo(full[0]![1]!, 12);
    expect(p[2]![2]).toBe(0);
  });

  it('a singular surface drops the standard error of only the parameters on its undetermined direction', () => {
    // Three parameters: x2 moves no target at all, x0 and x1 are determined.
    const slopes = [[0.5, 0.1, 0], [0.2, 0.4, 0], [0.3, -0.2, 0]];
    const sim = (x: readonly number[]) => slopes.map((s) => ({ value: 0.5 + s.reduce((a, j, p) => a + j * (x[p]! - 0.5), 0), n: 100, se: 0 }));
    const fit = [0.5, 0.5, 0.5];
    const pts = design(fit).map((x) => ({ x, sims: sim(x) }));
    const targets = slopes.map(() => ({ accuracy: 0.5, se: 0.1 }));
    const s = responseSurface(fit, pts, targets, sim(fit))!;
    expect(s.covariance).toBeNull();
    expect(s.undetermined).toEqual([false, false, true]);
    // The determined parameters' covariance is the inverse of their own block (x2's loading there is 0).
    const block = invert([0, 1].map((i) => [0, 1].map((j) => slopes.reduce((a, r) => a + 100 * r[i]! * r[j]!, 0))))!;
    expect(s.pseudoCovariance[0]![0]).toBeCloseTo(block[0]![0]!, 9);
    expect(s.pseudoCovariance[1]![1]).toBeCloseTo(block[1]![1]!, 9);
    expect(s.pseudoCovariance[2]![2]).toBe(0);
    // Two parameters that act only through their sum: both lose their error, the third keeps it.
    const sum = [[0.5, 0.3, 0.3], [0.2, -0.4, -0.4], [0.1, 0.2, 0.2]];
    const simSum = (x: readonly number[]) => sum.map((r) => ({ value: 0.5 + r.reduce((a, j, p) => a + j * (x[p]! - 0.5), 0), n: 100, se: 0 }));
    const s2 = responseSurface(fit, design(fit).map((x) => ({ x, sims: simSum(x) })), targets, simSum(fit))!;
    expect(s2.undetermined).toEqual([false, true, true]);
    expect(s2.pseudoCovariance[0]![0]).toBeGreaterThan(0);
  });

  it('the convergence rule: a fit at the true least is called converged about 95 % of the time, one far from it is not', () => {
    // 200 synthetic calibrations at the least of a known quadratic, with a misfit the planes cannot close and known noise.
    const nulls = Array.from({ length: 200 }, (_, i) => syntheticFit(i, [0.5, 0.5, 0.5], 1));
    const falseAlarms = nulls.filter((c) => !c.met).length;
    expect(falseAlarms).toBeGreaterThanOrEqual(3);
    expect(falseAlarms).toBeLessThanOrEqual(18);
    // The noise is real: at the least the old rule (gain < 1) would have failed nearly every one.
    expect(nulls.filter((c) => c.predictedDecrease! >= 1).length).toBeGreaterThan(150);
    // Far from the least, with slopes strong enough that the gain dwarfs the noise: never converged.
    const far = Array.from({ length: 20 }, (_, i) => syntheticFit(1000 + i, [0.7, 0.7, 0.7], 8));
    for (const c of far) {
      expect(c.met).toBe(false);
      expect(c.predictedDecrease!).toBeGreaterThan(c.gainThreshold!);
    }
    // A later evaluation far below the fit (beyond what the noise makes of a drop) is a better point: not converged.
    const atLeast = nulls.find((c) => c.met)!;
    const lower = syntheticFit(nulls.indexOf(atLeast), [0.5, 0.5, 0.5], 1, atLeast.dropThreshold! + 5);
    expect(lower.met).toBe(false);
    expect(lower.betterPoint?.chi2).toBeDefined();
    // Seeded: the same calibration gives the same thresholds to the bit.
    expect(syntheticFit(7, [0.5, 0.5, 0.5], 1)).toEqual(nulls[7]);
  });
});

/** The fit and a design around it: each parameter 0.05 either side. */
function design(fit: readonly number[]): number[][] {
  return [[...fit], ...fit.flatMap((_, i) => [-1, 1].map((sd) => fit.map((x, j) => (j === i ? x + sd * 0.05 : x))))];
}

/**
 * One synthetic calibration's verdict: six targets whose true values are planes in three parameters
 * (slopes times `strength`) with their least at 0.5 each and a misfit there no parameter closes,
 * evaluated at `fit`, its design and four search points nearby, each value with noise of sd 0.02
 * (the runs' sampling error); the design's evaluations come after the search (and one `lowerBy`
 * below the fit's χ², when given).
 */
function syntheticFit(seed: number, fit: readonly number[], strength: number, lowerBy?: number) {
  const slopes = [[0.1, 0.05, 0], [0, 0.1, 0.05], [0.05, 0, 0.1], [0.08, 0.08, 0], [0, 0.06, 0.1], [0.1, 0, 0.04]].map((r) => r.map((j) => j * strength));
  const least = [0.5, 0.5, 0.5];
  const truth = (x: readonly number[]) => slopes.map((r) => 0.5 + r.reduce((a, j, p) => a + j * (x[p]! - least[p]!), 0));
  // A misfit orthogonal to every slope column (weights are equal): the least stays at 0.5.
  const misfit = orthogonalTo(slopes, [0.12, -0.1, 0.08, -0.06, 0.1, -0.09]);
  const targets = truth(least).map((v, t) => ({ accuracy: v + misfit[t]!, se: 0.03 }));
  const rng = createRng(`synthetic:${seed}`);
  const at = (x: number[]): SurfacePoint => ({ x, sims: truth(x).map((v) => ({ value: v + 0.02 * rng.normal(), n: 600, se: 0.02 })) });
  const search = Array.from({ length: 4 }, () => fit.map((x) => x + (rng.next() - 0.5) * 0.2));
  const [atFit, ...designPts] = design(fit).map(at);
  const pts = [atFit!, ...designPts, ...search.map(at)];
  const chi2 = (p: SurfacePoint) => p.sims.reduce((a, s, t) => a + (s.value - targets[t]!.accuracy) ** 2 / (0.03 ** 2 + s.se ** 2), 0);
  return convergenceOf({
    simplexCollapsed: true, surface: responseSurface(fit, pts, targets, atFit!.sims), x: fit, values: fit, chi2: chi2(atFit!), targets,
    after: [...designPts.map((p) => ({ x: p.x, values: p.x, chi2: chi2(p) })), ...(lowerBy ? [{ x: [0.6, 0.6, 0.6], values: [0.6, 0.6, 0.6], chi2: chi2(atFit!) - lowerBy }] : [])], seed: String(seed),
    parameters: fit.map((_, i) => ({ name: `p${i}`, lo: 0, hi: 1, start: 0.5 })),
  });
}

/** `v` with its projection on every column of `a` taken out (Gram–Schmidt, repeated to convergence). */
function orthogonalTo(a: readonly (readonly number[])[], v: readonly number[]): number[] {
  let r = [...v];
  for (let it = 0; it < 100; it++) {
    for (let p = 0; p < a[0]!.length; p++) {
      const col = a.map((row) => row[p]!);
      const f = col.reduce((s, c, t) => s + c * r[t]!, 0) / col.reduce((s, c) => s + c * c, 0);
      r = r.map((x, t) => x - f * col[t]!);
    }
  }
  return r;
}
