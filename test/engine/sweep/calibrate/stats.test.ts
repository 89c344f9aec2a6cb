import { describe, expect, it } from 'vitest';
import { chi2PValue, cholesky, invert, leastSquares } from '../../../../src/engine/sweep/calibrate/stats';
import { planeValue, refitOthers, responseSurface, ridgeStep } from '../../../../src/engine/sweep/calibrate/surface';
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
});
