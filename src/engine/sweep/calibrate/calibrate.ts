import { rmSync } from 'node:fs';
import type { ModelPlugin } from '../../scenario/model-plugins';
import type { ScenarioPatch } from '../../../core/scenario-patch';
import { EvaluationInterrupted, Evaluator, type SimulatedTarget } from './evaluate';
import { clamp01, compareVectors, fittedTargets, heldOutPoints, heldOutRow, objectiveTerm, profileInterval, profilePoints, round9 } from './fit-analysis';
import type { CalibrationResult, FitParameter, FittedParameter } from './fit-types';
import { calibrationIdentity } from './identity';
import { EvaluationJournal, hashOf } from './journal';
import { nelderMead } from './nelder-mead';
import { convergenceOf } from './convergence';
import { chi2PValue, invert } from './stats';
import { planeValue, refitOthers, responseSurface } from './surface';
import type { Target } from './targets';

export type { CalibrationResult, FitParameter, FittedParameter, FittedTarget, HeldOutTarget, Convergence } from './fit-types';
export { objectiveTerm, profileInterval } from './fit-analysis';
export { CONVERGENCE_RULE } from './convergence';

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
  /** Points per parameter of the profile that gives its interval (default 4: ±1.5 and ±3 standard errors). */
  readonly profilePoints?: number;
  /**
   * Re-fit the other parameters at each profile point (one Gauss–Newton step from that point's own
   * evaluation, one more evaluation a point; the profile keeps the lower χ²). Default false: the
   * others follow the valley the fit's surface predicts.
   */
  readonly profileRefit?: boolean;
  /** Leave-one-target-out cross-validation, at most one evaluation per target (default true). */
  readonly leaveOneOut?: boolean;
  /** Anything that must change the calibration's identity besides what determines its evaluations (identity.ts). */
  readonly identity?: unknown;
  /** Told after each evaluation (from the journal or paid). */
  readonly onEvaluation?: (e: { readonly done: number; readonly budget: number; readonly cached: boolean; readonly chi2: number; readonly best: number }) => void;
}


/**
 * A target no fitted parameter can move: every parameter is set for other niches than its own.
 * Checked before any run; the CLI says it in one line.
 */
export function unmovableTarget(targets: readonly Target[], parameters: readonly FitParameter[]): Target | undefined {
  return targets.find((t) => {
    // A parameter for one of the niches the target pools, or for its group by name, moves it.
    const niches = [...t.niches, t.niche];
    return !parameters.some((p) => p.niche === undefined || niches.includes(p.niche));
  });
}

/** Evaluations a calibration may spend after its search: the design (2 a parameter), the profiles, and up to one per target left out (a refit near the fit is read off the surface). */
export function postSearchEvaluations(parameters: number, targets: number, opts: { readonly profilePoints?: number; readonly profileRefit?: boolean; readonly leaveOneOut?: boolean } = {}): number {
  return parameters * (2 + profileCount(opts.profilePoints) * (opts.profileRefit ? 2 : 1)) + (opts.leaveOneOut === false ? 0 : targets);
}

const profileCount = (n: number | undefined) => 2 * Math.max(1, Math.floor((n ?? 4) / 2));

/** The step of the design around the fit, in the unit box: the planes of the response surface are fitted over it. */
const DESIGN_STEP = 0.05;

/**
 * Fit parameters so that the simulated accuracy of each target's variant matches the target
 * (docs/calibration.md): objective Σ ((sim − target)/se)², the same seeds and streams at every
 * evaluation (common random numbers), Nelder–Mead in the unit box of the parameters' bounds; then
 * a design of evaluations around the fit for a local response surface (each target's value a plane
 * in the parameters) whose Hessian gives the covariance, each parameter's profile along the
 * surface's valley for its interval, the convergence rule, χ² with its p-value, and every target
 * left out in turn (refitted on the surface, evaluated at the refit). Deterministic: the same
 * options give the same evaluations in the same order, so a journal of them resumes a killed
 * calibration to the same fit. Throws EvaluationInterrupted on a stop request.
 */
export async function calibrate(opts: CalibrateOptions): Promise<CalibrationResult> {
  const k = opts.parameters.length;
  const doLoo = opts.leaveOneOut !== false;
  // The search leaves room for the design, profiles and refits, and for one Gauss–Newton step with its new design.
  const searchBudget = Math.max(k + 2, opts.budget - postSearchEvaluations(k, opts.targets.length, opts) - (2 * k + 1));
  const journal = new EvaluationJournal(opts.journal, calibrationIdentity(opts));
  const fromJournal = journal.size;
  const evaluator = new Evaluator({
    targets: opts.targets, seeds: opts.seeds, workDir: opts.workDir,
    patch: opts.patch, jobs: opts.jobs, childEntry: opts.childEntry, plugins: opts.plugins, stop: opts.stop,
  });
  const onStop = () => evaluator.stop();
  opts.stop?.addEventListener('abort', onStop, { once: true });
  const range = (i: number) => opts.parameters[i]!.hi - opts.parameters[i]!.lo;
  const toValues = (x: readonly number[]) => x.map((u, i) => round9(opts.parameters[i]!.lo + range(i) * clamp01(u)));
  const toUnit = (v: number, i: number) => (v - opts.parameters[i]!.lo) / range(i);
  let done = 0;
  let paid = 0;
  let best = Infinity;
  type Seen = { values: number[]; sims: readonly SimulatedTarget[]; chi2: number };
  const seen = new Map<string, Seen>();
  const evaluateOne = async (values: number[]): Promise<Seen> => {
    const evalKey = hashOf(values);
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
  // The points of one request (a simplex, a shrink, the design, the profiles) are evaluated at once: their runs share the workers.
  const inFlight = new Map<string, Promise<Seen>>();
  const evaluateValues = (values: number[]) => {
    const key = hashOf(values);
    let p = inFlight.get(key);
    if (!p) {
      p = evaluateOne(values);
      inFlight.set(key, p);
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
    let values = toValues(fit.x);
    let x0 = values.map(toUnit);
    let atFit = await evaluateValues(values);
    const surfaceAt = async () => {
      // The design: each parameter a step either side (both on the side away from a bound it sits on).
      await evaluateAll(opts.parameters.flatMap((_, i) => {
        const sides = x0[i]! + DESIGN_STEP > 1 ? [-1, -2] : x0[i]! - DESIGN_STEP < 0 ? [1, 2] : [-1, 1];
        return sides.map((sd) => x0.map((x, j) => (j === i ? clamp01(x + sd * DESIGN_STEP) : x)));
      }));
      // In parameter order, not the order evaluations finished in: a resumed calibration sums them the same way.
      return responseSurface(x0, [...seen.values()].sort((a, b) => compareVectors(a.values, b.values)).map((e) => ({ x: e.values.map(toUnit), sims: e.sims })), opts.targets, atFit.sims);
    };
    let surface = await surfaceAt();
    // Gauss–Newton refinement while the budget has room: step to the surface's least (at most a quarter of a range
    // on any axis), keep it when χ² falls by more than 0.5, and fit the surface again there.
    const reserve = postSearchEvaluations(k, opts.targets.length, opts) - 2 * k;
    // A step the rough planes overshoot is tried again at half its length.
    refine: while (surface && surface.predictedDecrease >= 1) {
      const stepScale = Math.min(1, 0.25 / Math.max(...surface.step.map(Math.abs)));
      let next: Seen | undefined;
      for (const f of [1, 0.5]) {
        if (seen.size + 1 + 2 * k + reserve > opts.budget) break refine;
        const tried = await evaluateValues(toValues(x0.map((x, i) => clamp01(x + f * stepScale * surface!.step[i]!))));
        if (tried.chi2 < atFit.chi2 - 0.5) { next = tried; break; }
      }
      if (!next) break;
      atFit = next;
      values = next.values;
      x0 = values.map(toUnit);
      surface = await surfaceAt();
    }
    // A direction the targets do not determine gets the bounds' weak prior, so every parameter has a finite (and wide) error.
    const unitCov = surface?.covariance ?? (surface ? invert(surface.information.map((row, i) => row.map((v, j) => v + (i === j ? 12 : 0))), 1e-12) : null);
    const sdUnit = x0.map((_, i) => (unitCov ? Math.sqrt(Math.max(0, unitCov[i]![i]!)) : Infinity));
    const profiles = await Promise.all(opts.parameters.map((_, i) => evaluateAll(profilePoints(surface, x0, i, sdUnit[i]!, opts.profilePoints ?? 4))
      .then(async (es) => {
        if (!opts.profileRefit || !surface) return es.map((e) => ({ value: e.values[i]!, chi2: e.chi2 }));
        const refits = await evaluateAll(es.map((e) => refitOthers(surface!, e.values.map(toUnit), i, e.sims, opts.targets)));
        return es.map((e, n) => ({ value: e.values[i]!, chi2: Math.min(e.chi2, refits[n]!.chi2) }));
      })));
    const parameters: FittedParameter[] = opts.parameters.map((p, i) => {
      const profile = uniqueByValue([{ value: values[i]!, chi2: atFit.chi2 }, ...profiles[i]!]).sort((a, b) => a.value - b.value);
      const prof = profileInterval(profile, values[i]!);
      const se = round9(standardError(surface, i) * range(i));
      return { name: p.name, start: p.start, lo: p.lo, hi: p.hi, value: values[i]!, se, ...prof, pinned: prof.pinned && Number.isFinite(se), profile };
    });
    const heldOut = doLoo && surface ? await crossValidate(surface, x0, atFit.sims, evaluateAll, opts, toUnit, toValues) : [];
    const convergence = convergenceOf({
      simplexCollapsed: fit.converged, surface, x: x0, values, chi2: atFit.chi2, targets: opts.targets, parameters: opts.parameters,
      after: [...seen.values()].slice(searchCount).map((e) => ({ x: e.values.map(toUnit), values: e.values, chi2: e.chi2 })), seed: opts.seeds.join(','),
    });
    const covariance = surface?.covariance ? surface.covariance.map((row, i) => row.map((v, j) => round9(v * range(i) * range(j)))) : null;
    const dof = opts.targets.length - k;
    const fitted = fittedTargets(opts.targets, atFit.sims, [...seen.values()].map((e) => e.sims));
    return {
      values, chi2: atFit.chi2, dof, pValue: round9(chi2PValue(atFit.chi2, dof)), converged: convergence.met, convergence, parameters, covariance,
      targets: fitted, heldOut,
      ...(convergence.betterPoint ? { betterInProfile: convergence.betterPoint } : {}),
      evaluations: { total: seen.size, paid, fromJournal: Math.min(fromJournal, seen.size), search: searchCount },
      undetermined: opts.parameters.filter((_, i) => surface?.undetermined[i] ?? true).map((p) => p.name),
      notPinned: parameters.filter((p) => !p.pinned).map((p) => p.name),
      unmoved: fitted.filter((t) => !t.moved).map((t) => t.index),
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
 * Each target left out in turn: refitted on the surface without it, its measurement against the
 * prediction's interval. The simulated value at a refit inside the region the planes were fitted
 * over is its plane's (the evaluations that fitted it are paid already); a refit outside it is
 * evaluated, all such refits at once.
 */
async function crossValidate(
  surface: NonNullable<ReturnType<typeof responseSurface>>, x0: readonly number[], atFit: readonly SimulatedTarget[],
  evaluateAll: (points: readonly (readonly number[])[]) => Promise<{ values: number[]; sims: readonly SimulatedTarget[] }[]>,
  opts: CalibrateOptions, toUnit: (v: number, i: number) => number, toValues: (x: readonly number[]) => number[],
) {
  const start = opts.parameters.map((p, i) => toUnit(p.start, i));
  const refits = heldOutPoints(surface, opts.targets, x0, start);
  const planes = refits.map((r, j) => planeValue(surface, j, x0, r.x, atFit[j]!));
  const outside = refits.filter((_, j) => planes[j] === null);
  const evaluated = await evaluateAll(outside.map((r) => r.x));
  let next = 0;
  return opts.targets.map((t, j) => {
    const plane = planes[j];
    if (plane) return heldOutRow(t, j, surface, refits[j]!, toValues(refits[j]!.x), plane, 'surface');
    const e = evaluated[next++]!;
    return heldOutRow(t, j, surface, refits[j]!, e.values, e.sims[j]!, 'evaluation');
  });
}

/**
 * A parameter's standard error in the unit box: from the covariance, or from its inverse on the
 * determined directions when the surface is singular; none (Infinity) for a parameter on a
 * direction the targets do not determine, or with no surface.
 */
function standardError(surface: ReturnType<typeof responseSurface>, i: number): number {
  if (!surface || surface.undetermined[i]) return Infinity;
  const cov = surface.covariance ?? surface.pseudoCovariance;
  return Math.sqrt(Math.max(0, cov[i]![i]!));
}

function uniqueByValue(points: { value: number; chi2: number }[]): { value: number; chi2: number }[] {
  const m = new Map<number, { value: number; chi2: number }>();
  for (const p of points) if (!m.has(p.value)) m.set(p.value, p);
  return [...m.values()];
}

export { EvaluationInterrupted };
