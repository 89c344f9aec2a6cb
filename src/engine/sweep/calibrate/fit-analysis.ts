import type { SimulatedTarget } from './evaluate';
import type { FittedParameter, FittedTarget, HeldOutTarget } from './fit-types';
import { leaveOneOut, predictionVariance, ridgeStep, simVariance, type Surface } from './surface';
import type { Target } from './targets';

const Z95 = 1.96;
const CHI2_95 = 3.84;

/**
 * One target's share of the objective: its squared distance over the variance of the difference,
 * the target's standard error and the simulator's own sampling error at that evaluation together
 * (a short stream is noisy: without its own error the objective would read its noise as signal
 * and the intervals would shrink to nothing). A target whose niche had no task counts its own error alone.
 */
export function objectiveTerm(t: { readonly accuracy: number; readonly se: number }, sim: SimulatedTarget): number {
  return (sim.value - t.accuracy) ** 2 / (t.se ** 2 + simVariance(sim));
}

/** A profile's 95% interval around `at`: where the objective crosses its least + 3.84, by linear interpolation. */
export function profileInterval(profile: readonly { value: number; chi2: number }[], at: number): Pick<FittedParameter, 'interval' | 'open' | 'pinned'> {
  const least = Math.min(...profile.map((p) => p.chi2));
  const top = least + CHI2_95;
  const i0 = profile.findIndex((p) => p.value === at);
  // The fit itself is out of the interval (a profile point far below it): the search had not converged, nothing is bounded.
  if (profile[i0]!.chi2 > top) return { interval: [at, at], open: [true, true], pinned: false };
  const side = (dir: 1 | -1): [number, boolean] => {
    let prev = profile[i0]!;
    for (let i = i0 + dir; i >= 0 && i < profile.length; i += dir) {
      const p = profile[i]!;
      if (p.chi2 > top) {
        const f = prev.chi2 >= top ? 0 : (top - prev.chi2) / (p.chi2 - prev.chi2);
        return [round9(prev.value + f * (p.value - prev.value)), false];
      }
      prev = p;
    }
    return [prev.value, true];
  };
  const [lo, openLo] = side(-1);
  const [hi, openHi] = side(1);
  const rise = Math.max(...profile.map((p) => p.chi2)) - least;
  return { interval: [lo, hi], open: [openLo, openHi], pinned: rise >= 1 && !(openLo && openHi) };
}

/**
 * The points (unit box) of a parameter's profile: moved by multiples of its standard error (±1.5
 * and ±3 with four points), the others along the surface's valley. A side that reaches a bound
 * keeps one point there (none when the fit is at it) and hands the rest to the other side, which
 * goes on at the same spacing (4.5, 6 …): a point beyond a bound would be the bound again, a paid
 * evaluation that tells nothing.
 */
export function profilePoints(surface: Surface | null, fit: readonly number[], i: number, sd: number, count: number): number[][] {
  const half = Math.max(1, Math.floor(count / 2));
  const scale = Math.min(0.25, Math.max(0.01, Number.isFinite(sd) ? sd : 0.25));
  const multiple = (n: number) => (3 * (n + 1)) / half;
  // How many of a side's points lie inside the box (the first to reach the bound counts, unless the fit is on it).
  const usable = (sign: number) => {
    let n = 0;
    while (n < half && fit[i]! + sign * multiple(n) * scale > 0 && fit[i]! + sign * multiple(n) * scale < 1) n++;
    return n < half && fit[i]! > 0 && fit[i]! < 1 ? n + 1 : n;
  };
  const down = usable(-1);
  const up = usable(1);
  const side = (sign: number, own: number, other: number) => Array.from({ length: own + (half - other) }, (_, n) => sign * multiple(n));
  // The others follow the valley for the value actually evaluated (a move clamped at the bound is that much shorter).
  const deltas = [...side(-1, down, up), ...side(1, up, down)].map((m) => clamp01(fit[i]! + m * scale) - fit[i]!);
  return deltas.filter((d, n) => d !== 0 && deltas.indexOf(d) === n).map((d) => {
    const move = surface ? ridgeStep(surface, i, d) : fit.map((_, j) => (j === i ? d : 0));
    return fit.map((x, j) => clamp01(x + move[j]!));
  });
}

/** Every target against its value at the fit. */
export function fittedTargets(targets: readonly Target[], atFit: readonly SimulatedTarget[], all: readonly (readonly SimulatedTarget[])[]): FittedTarget[] {
  return targets.map((t, i) => {
    const s = atFit[i]!;
    const se = Number.isFinite(s.se) ? s.se : 0;
    const vals = all.map((e) => e[i]!.value);
    return {
      index: t.index, variant: t.variant, niche: t.niche, scenario: t.loaded.scenario.name, source: t.source,
      target: t.accuracy, se: t.se, fitted: round9(s.value), fittedSe: round9(se), fittedN: s.n,
      interval: [round9(Math.max(0, s.value - Z95 * se)), round9(Math.min(1, s.value + Z95 * se))],
      within: Math.abs(s.value - t.accuracy) <= Z95 * Math.sqrt(t.se ** 2 + se ** 2),
      moved: Math.max(...vals) > Math.min(...vals),
    };
  });
}

/** Each target's leave-one-out refit (unit box), from the surface. */
export function heldOutPoints(surface: Surface, targets: readonly Target[], fit: readonly number[], start: readonly number[]) {
  return targets.map((_, j) => {
    const r = leaveOneOut(surface, j, fit, start);
    return { x: fit.map((v, p) => clamp01(v + r.step[p]!)), covariance: r.covariance };
  });
}

/** A held-out target's row: the simulated value at its refit, with the refit's parameter uncertainty, the simulator's noise and the target's error. */
export function heldOutRow(t: Target, j: number, surface: Surface, refit: { covariance: number[][] }, values: readonly number[], sim: SimulatedTarget, by: HeldOutTarget['by']): HeldOutTarget {
  const sd = Math.sqrt(predictionVariance(surface.jacobian[j]!, refit.covariance) + simVariance(sim) + t.se ** 2);
  const lo = Math.max(0, sim.value - Z95 * sd);
  const hi = Math.min(1, sim.value + Z95 * sd);
  return {
    index: t.index, variant: t.variant, niche: t.niche, scenario: t.loaded.scenario.name, target: t.accuracy,
    predicted: round9(sim.value), interval: [round9(lo), round9(hi)], inside: t.accuracy >= lo && t.accuracy <= hi, values, by,
  };
}

export const clamp01 = (x: number) => Math.min(1, Math.max(0, x));
export const round9 = (x: number) => Math.round(x * 1e9) / 1e9;

/** Lexicographic order of two parameter vectors: ties between evaluations break the same way every run. */
export function compareVectors(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return 0;
}
