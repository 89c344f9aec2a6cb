import { rmSync } from 'node:fs';
import type { ModelPlugin } from '../../scenario/model-plugins';
import type { ScenarioPatch } from '../../scenario/scenario-patch';
import { EvaluationInterrupted, Evaluator, type SimulatedTarget } from './evaluate';
import { calibrationIdentity } from './identity';
import { EvaluationJournal, hashOf } from './journal';
import { nelderMead } from './nelder-mead';
import type { Target } from './targets';

/** A parameter to fit: its name (`base`, `base@aime`), its bounds and where the search starts. */
export interface FitParameter {
  readonly name: string;
  /** The niche it is set for, when it is a per-niche parameter (`base@aime` → `aime`). */
  readonly niche?: string;
  readonly lo: number;
  readonly hi: number;
  readonly start: number;
}

/** What `calibrate` fits, against what, and how it runs. */
export interface CalibrateOptions {
  readonly targets: readonly Target[];
  readonly parameters: readonly FitParameter[];
  /** The scenario patch that sets the parameters to `values` (the composition's: `sim.world` for the simulator). */
  readonly parameterPatch: (values: readonly number[]) => ScenarioPatch;
  /** Seeds of every evaluation, the same each time (common random numbers). */
  readonly seeds: readonly number[];
  /** Every run's own overrides besides the parameters, e.g. `{ "stream.tasks": 100 }` (default: none, each scenario as it is). */
  readonly patch?: ScenarioPatch;
  /** Evaluations in all, the search's and the intervals' (each evaluation is every target's runs over the seeds). */
  readonly budget: number;
  /** The journal of evaluations (JSONL), read back on a resumed calibration. */
  readonly journal: string;
  /** Where the runs go while they run. */
  readonly workDir: string;
  readonly jobs?: number;
  readonly childEntry?: string;
  readonly plugins?: readonly ModelPlugin[];
  readonly stop?: AbortSignal;
  /** Points per parameter of the profile that gives its interval (default 8). */
  readonly profilePoints?: number;
  /** Anything that must change the calibration's identity besides what determines its evaluations (identity.ts). */
  readonly identity?: unknown;
  /** Told after each evaluation (from the journal or paid). */
  readonly onEvaluation?: (e: { readonly done: number; readonly budget: number; readonly cached: boolean; readonly chi2: number; readonly best: number }) => void;
}

/** One target against the fitted world. */
export interface FittedTarget {
  readonly index: number;
  readonly variant: string;
  readonly niche: string;
  readonly scenario: string;
  readonly source: string;
  readonly target: number;
  readonly se: number;
  /** The simulated value at the fit, its standard error and graded tasks. */
  readonly fitted: number;
  readonly fittedSe: number;
  readonly fittedN: number;
  /** 95% interval of the fitted value (the simulator's own sampling spread over its graded tasks). */
  readonly interval: readonly [number, number];
  /** |fitted − target| within 1.96 standard errors of the two together. */
  readonly within: boolean;
  /** Some evaluation gave this target another value (false: nothing fitted moves it). */
  readonly moved: boolean;
}

/** One fitted parameter with its interval from its profile. */
export interface FittedParameter {
  readonly name: string;
  readonly start: number;
  readonly lo: number;
  readonly hi: number;
  readonly value: number;
  /** 95% interval: where the objective stays within 3.84 of its least along this parameter. */
  readonly interval: readonly [number, number];
  /** The interval reached the end of the profile on that side (lower, upper): the data bound it no further. */
  readonly open: readonly [boolean, boolean];
  /** False when the objective moves by less than 1 over the whole profile, or the interval is open on both sides. */
  readonly pinned: boolean;
  /** The profile: objective at each value, the others held at their fit. */
  readonly profile: readonly { readonly value: number; readonly chi2: number }[];
}

/** What a calibration found. */
export interface CalibrationResult {
  readonly values: readonly number[];
  readonly chi2: number;
  /** Targets minus fitted parameters. */
  readonly dof: number;
  readonly converged: boolean;
  readonly parameters: readonly FittedParameter[];
  readonly targets: readonly FittedTarget[];
  readonly evaluations: { readonly total: number; readonly paid: number; readonly fromJournal: number; readonly search: number };
  /** The parameters the data does not pin down (flat or two-sided open profile). */
  readonly notPinned: readonly string[];
  /** Targets no evaluation moved. */
  readonly unmoved: readonly number[];
  /** A profile point with a lower objective than the fit, when one was found (the search had not converged: raise the budget). */
  readonly betterInProfile?: { readonly name: string; readonly value: number; readonly chi2: number };
}

/**
 * A target no fitted parameter can move: every parameter is set for other niches than its own.
 * Checked before any run; the CLI says it in one line.
 */
export function unmovableTarget(targets: readonly Target[], parameters: readonly FitParameter[]): Target | undefined {
  return targets.find((t) => !parameters.some((p) => p.niche === undefined
    || (t.niche === 'all' ? t.loaded.scenario.stream.niches.some((n) => n.id === p.niche) : p.niche === t.niche)));
}

const Z95 = 1.96;
const CHI2_95 = 3.84;

/**
 * Fit parameters so that the simulated accuracy of each target's variant matches the target
 * (docs/calibration.md): objective Σ ((sim − target)/se)², the same seeds and streams at every
 * evaluation (common random numbers), Nelder–Mead in the unit box of the parameters' bounds, then
 * a profile of each parameter for its interval. Deterministic: the same options give the same
 * evaluations in the same order, so a journal of them resumes a killed calibration to the same fit.
 * Throws EvaluationInterrupted on a stop request (the journal keeps what was paid).
 */
export async function calibrate(opts: CalibrateOptions): Promise<CalibrationResult> {
  const k = opts.parameters.length;
  const profilePoints = opts.profilePoints ?? 8;
  const searchBudget = Math.max(k + 2, opts.budget - k * profilePoints);
  const journal = new EvaluationJournal(opts.journal, calibrationIdentity(opts));
  const fromJournal = journal.size;
  const evaluator = new Evaluator({
    targets: opts.targets, seeds: opts.seeds, workDir: opts.workDir,
    ...(opts.patch ? { patch: opts.patch } : {}), ...(opts.jobs !== undefined ? { jobs: opts.jobs } : {}),
    ...(opts.childEntry ? { childEntry: opts.childEntry } : {}), ...(opts.plugins ? { plugins: opts.plugins } : {}),
    ...(opts.stop ? { stop: opts.stop } : {}),
  });
  const onStop = () => evaluator.stop();
  opts.stop?.addEventListener('abort', onStop, { once: true });
  const toValues = (x: readonly number[]) => x.map((u, i) => {
    const p = opts.parameters[i]!;
    return round9(p.lo + (p.hi - p.lo) * Math.min(1, Math.max(0, u)));
  });
  const toUnit = (v: number, i: number) => (v - opts.parameters[i]!.lo) / (opts.parameters[i]!.hi - opts.parameters[i]!.lo);
  let done = 0;
  let paid = 0;
  let best = Infinity;
  const seen = new Map<string, { values: number[]; sims: readonly SimulatedTarget[]; chi2: number }>();
  const evaluateOne = async (values: number[]) => {
    const evalKey = hashOf(values);
    const known = seen.get(evalKey);
    if (known) return known;
    let entry = journal.get(evalKey);
    const cached = entry !== undefined;
    if (!entry) {
      const sims = await evaluator.evaluate(opts.parameterPatch(values), evalKey);
      const chi2 = round9(opts.targets.reduce((s, t, i) => s + objectiveTerm(t, sims[i]!), 0));
      entry = { type: 'eval', key: evalKey, values, sims, chi2 };
      journal.add(entry);
      paid++;
    }
    const e = { values, sims: entry.sims, chi2: entry.chi2 };
    seen.set(evalKey, e);
    done++;
    best = Math.min(best, e.chi2);
    opts.onEvaluation?.({ done, budget: opts.budget, cached, chi2: e.chi2, best });
    return e;
  };
  // The points of one request (a simplex, a shrink, the profiles) are evaluated at once: their runs share the workers.
  const inFlight = new Map<string, ReturnType<typeof evaluateOne>>();
  const evaluateValues = (values: number[]) => {
    const k2 = hashOf(values);
    let p = inFlight.get(k2);
    if (!p) {
      p = evaluateOne(values);
      inFlight.set(k2, p);
    }
    return p;
  };
  const evaluateAll = (points: readonly (readonly number[])[]) => Promise.all(points.map((p) => evaluateValues(toValues(p))));
  try {
    const search = nelderMead(opts.parameters.map((p, i) => toUnit(p.start, i)), { step: 0.1, xTolerance: 2e-3, fTolerance: 1e-3 });
    let step = search.next();
    let fit: { x: readonly number[]; converged: boolean };
    for (;;) {
      if (step.done) { fit = step.value; break; }
      if (seen.size + step.value.length > searchBudget) {
        // Ties go to the smaller parameter vector, so the order evaluations finished in never decides.
        const bestSeen = [...seen.values()].sort((a, b) => a.chi2 - b.chi2 || compareVectors(a.values, b.values))[0]!;
        fit = { x: bestSeen.values.map(toUnit), converged: false };
        break;
      }
      const r = await evaluateAll(step.value);
      step = search.next(r.map((e) => e.chi2));
    }
    const searchCount = seen.size;
    const values = toValues(fit.x);
    const atFit = await evaluateValues(values);
    // Profiles: each parameter moved alone around the fit, at ±2.5, 5, 10 and 20 % of its range.
    const offsets = [-0.2, -0.1, -0.05, -0.025, 0.025, 0.05, 0.1, 0.2].slice(0, Math.max(2, profilePoints));
    const grids = opts.parameters.map((_, i) => {
      const points = [...new Set(offsets.map((o) => round9(Math.min(1, Math.max(0, fit.x[i]! + o)))))];
      return [...new Set(points.map((u) => toValues(fit.x.map((x, j) => (j === i ? u : x)))[i]!))].filter((v) => v !== values[i]);
    });
    const profiled = await Promise.all(grids.map((grid, i) => Promise.all(grid.map((g) => {
      const v = values.slice();
      v[i] = g;
      return evaluateValues(v).then((e) => ({ value: g, chi2: e.chi2 }));
    }))));
    const parameters: FittedParameter[] = opts.parameters.map((p, i) => {
      const profile = [{ value: values[i]!, chi2: atFit.chi2 }, ...profiled[i]!].sort((a, b) => a.value - b.value);
      return { name: p.name, start: p.start, lo: p.lo, hi: p.hi, value: values[i]!, ...profileInterval(profile, values[i]!), profile };
    });
    const all = [...seen.values()];
    // A profile point better than the fit: the search had not converged (noise, or a budget cut short).
    const better = parameters.flatMap((p) => p.profile.filter((x) => x.chi2 < atFit.chi2 - 1e-9).map((x) => ({ name: p.name, value: x.value, chi2: x.chi2 })))
      .sort((a, b) => a.chi2 - b.chi2 || a.name.localeCompare(b.name) || a.value - b.value)[0];
    const targets: FittedTarget[] = opts.targets.map((t, i) => {
      const s = atFit.sims[i]!;
      const se = Number.isFinite(s.se) ? s.se : 0;
      const vals = all.map((e) => e.sims[i]!.value);
      return {
        index: t.index, variant: t.variant, niche: t.niche, scenario: t.loaded.scenario.name, source: t.source,
        target: t.accuracy, se: t.se, fitted: round9(s.value), fittedSe: round9(se), fittedN: s.n,
        interval: [round9(Math.max(0, s.value - Z95 * se)), round9(Math.min(1, s.value + Z95 * se))],
        within: Math.abs(s.value - t.accuracy) <= Z95 * Math.sqrt(t.se ** 2 + se ** 2),
        moved: Math.max(...vals) > Math.min(...vals),
      };
    });
    return {
      values, chi2: atFit.chi2, dof: opts.targets.length - k, converged: fit.converged && !better, parameters, targets,
      ...(better ? { betterInProfile: better } : {}),
      evaluations: { total: seen.size, paid, fromJournal: Math.min(fromJournal, seen.size), search: searchCount },
      notPinned: parameters.filter((p) => !p.pinned).map((p) => p.name),
      unmoved: targets.filter((t) => !t.moved).map((t) => t.index),
    };
  } finally {
    // An interrupted batch: let its other evaluations end (each is journaled if it finished) before the workers go.
    await Promise.allSettled(inFlight.values());
    opts.stop?.removeEventListener('abort', onStop);
    await evaluator.close();
    rmSync(opts.workDir, { recursive: true, force: true });
  }
}

/**
 * One target's share of the objective: its squared distance over the variance of the difference,
 * the target's standard error and the simulator's own sampling error at that evaluation together
 * (a short stream is noisy: without its own error the objective would read its noise as signal
 * and the intervals would shrink to nothing). A target whose niche had no task counts its own error alone.
 */
export function objectiveTerm(t: { readonly accuracy: number; readonly se: number }, sim: SimulatedTarget): number {
  const simSe = sim.n > 0 && Number.isFinite(sim.se) ? sim.se : 0;
  return (sim.value - t.accuracy) ** 2 / (t.se ** 2 + simSe ** 2);
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

const round9 = (x: number) => Math.round(x * 1e9) / 1e9;

function compareVectors(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return 0;
}

export { EvaluationInterrupted };
