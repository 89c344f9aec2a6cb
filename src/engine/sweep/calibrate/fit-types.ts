/** A parameter to fit: its name (`base`, `base@aime`), its bounds and where the search starts. */
export interface FitParameter {
  readonly name: string;
  /** The niche it is set for, when it is a per-niche parameter (`base@aime` → `aime`). */
  readonly niche?: string;
  readonly lo: number;
  readonly hi: number;
  readonly start: number;
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

/** One fitted parameter with its standard error (the surface's covariance) and its profile interval. */
export interface FittedParameter {
  readonly name: string;
  readonly start: number;
  readonly lo: number;
  readonly hi: number;
  readonly value: number;
  /** Standard error from the response surface's covariance, or its inverse on the determined directions when it is singular (Infinity when the parameter loads on a direction the targets do not determine). */
  readonly se: number;
  /** 95% interval: where the profile χ² stays within 3.84 of its least. */
  readonly interval: readonly [number, number];
  /** The interval reached the end of the profile on that side (lower, upper): the data bound it no further. */
  readonly open: readonly [boolean, boolean];
  /** False when the profile rises by less than 1, or is open on both sides, or the surface cannot determine it. */
  readonly pinned: boolean;
  /** The profile: χ² at each value with the other parameters moved along the valley (the surface's least for that value). */
  readonly profile: readonly { readonly value: number; readonly chi2: number }[];
}

/** A target left out: refitted without it, its prediction against its measurement. */
export interface HeldOutTarget {
  readonly index: number;
  readonly variant: string;
  readonly niche: string;
  readonly scenario: string;
  readonly target: number;
  /** The simulated value at the refit without it. */
  readonly predicted: number;
  /** 95% interval for the measurement: the refit's parameter uncertainty, the simulator's noise and the target's own error. */
  readonly interval: readonly [number, number];
  readonly inside: boolean;
  /** The refit's parameter values. */
  readonly values: readonly number[];
  /**
   * How the simulated value at the refit was had: `surface`, the target's plane (the refit lies in
   * the region the planes were fitted over, so no new runs are paid), or `evaluation`, runs at the
   * refit (it lies outside, where a plane would extrapolate).
   */
  readonly by: 'surface' | 'evaluation';
}

/** The convergence rule and whether the fit met it (docs/calibration.md). */
export interface Convergence {
  readonly met: boolean;
  /** The simplex collapsed before the search's budget ran out. */
  readonly simplexCollapsed: boolean;
  /** χ² the response surface says one Gauss–Newton step from the fit would still gain. */
  readonly predictedDecrease: number | null;
  /** What noise alone makes that gain reach at a true least (the bootstrap's threshold, at least 1); converged: the gain below it. */
  readonly gainThreshold: number | null;
  /** The fit's χ² minus the lowest evaluation's after the search (negative: the fit is the lowest), null with none. */
  readonly drop: number | null;
  /** What noise alone makes that drop reach at a true least (at least 1); converged: the drop not above it. */
  readonly dropThreshold: number | null;
  /** The best evaluation after the search (design, profile) when it beat the fit by more than the noise allows. */
  readonly betterPoint?: { readonly name: string; readonly value: number; readonly chi2: number };
  readonly rule: string;
}

/** What a calibration found. */
export interface CalibrationResult {
  readonly values: readonly number[];
  readonly chi2: number;
  /** Targets minus fitted parameters. */
  readonly dof: number;
  /** P(χ²_dof ≥ chi2): the fit's goodness (NaN with no degree of freedom). */
  readonly pValue: number;
  readonly converged: boolean;
  readonly convergence: Convergence;
  readonly parameters: readonly FittedParameter[];
  /** The parameters' covariance (parameter units) from the response surface; null when it is singular. */
  readonly covariance: readonly (readonly number[])[] | null;
  readonly targets: readonly FittedTarget[];
  /** Leave-one-target-out cross-validation (empty when switched off). */
  readonly heldOut: readonly HeldOutTarget[];
  readonly evaluations: { readonly total: number; readonly paid: number; readonly fromJournal: number; readonly search: number };
  /** The parameters on a direction the targets do not determine (no standard error). */
  readonly undetermined: readonly string[];
  /** The parameters the data does not pin down. */
  readonly notPinned: readonly string[];
  /** Targets no evaluation moved. */
  readonly unmoved: readonly number[];
  /** Kept for the fit report: the best post-search evaluation below the fit (same as convergence.betterPoint). */
  readonly betterInProfile?: { readonly name: string; readonly value: number; readonly chi2: number };
}
