import { DEFAULT_AUTO } from '../scenario/auto-config';
import { WindowClimb, type ClimbStep } from '../loop/concurrency/window-climb';

/** A change of the number of runs at once, and why. */
export interface RunWindowChange {
  readonly from: number;
  readonly to: number;
  readonly step: ClimbStep;
}

/** Answers a period needs before it is judged: fewer, and the period is extended. */
const MIN_ANSWERS_TOKENS = 20_000;

/**
 * `ablate --parallel auto`: how many runs of a sweep go at once over one server, found by the
 * adaptive controller's two-sided hill climb (concurrency/window-climb.ts), once per period of the
 * sweep's clock (the shared virtual clock, or the wall clock over HTTP).
 *
 * What it climbs on: a run at a fixed window is latency-bound, so the sweep's output rate is about
 * (runs at once) / (the server's pace: ms per output token of a request, from submission to last
 * token). The pace is a mean over every answer of the period, where the measured tokens/s of a
 * period swings with which runs happen to be in long tasks; so the climb reads runs × 1000 / pace.
 * Runs share nothing but the server: adding one costs no accuracy, and the climb stops where the
 * server's pace slows more than the added runs gain (a probe is kept when the estimated rate rose by
 * at least `minEfficiency` of the window's relative growth).
 */
export class RunWindow {
  private readonly climb: WindowClimb;
  private w: number;
  private periodStart: number | undefined;
  private at = { ms: 0, tokens: 0 };

  constructor(private readonly runs: number, private readonly periodSeconds = DEFAULT_AUTO.periodSeconds * 2) {
    this.climb = new WindowClimb({ min: 1, max: Math.max(1, runs), growStep: DEFAULT_AUTO.growStep, minEfficiency: DEFAULT_AUTO.minEfficiency, holdPeriods: 1 });
    this.w = 1;
  }

  /** Runs at once now. */
  get limit(): number {
    return this.w;
  }

  /**
   * Tell it the sweep's clock (seconds) and the shared server's pace so far (summed latency ms and
   * output tokens of its answers); returns the change when a period ended and the climb moved the
   * window. `waiting` is the number of runs not started yet.
   */
  observe(now: number, pace: { ms: number; tokens: number }, waiting: number): RunWindowChange | null {
    // Every run has started: the number at once decides nothing more.
    if (waiting === 0) return null;
    if (this.periodStart === undefined) {
      this.periodStart = now;
      this.at = { ...pace };
      return null;
    }
    const tokens = pace.tokens - this.at.tokens;
    if (now - this.periodStart < this.periodSeconds || tokens < MIN_ANSWERS_TOKENS) return null;
    const msPerToken = (pace.ms - this.at.ms) / tokens;
    this.periodStart = now;
    this.at = { ...pace };
    const rate = msPerToken > 0 ? (this.w * 1000) / msPerToken : 0;
    const step = this.climb.step(this.w, rate, 'run-tokens/s', this.w < this.runs);
    if (!step) return null;
    const to = Math.max(1, Math.min(this.runs, step.to));
    if (to === this.w) return null;
    const change = { from: this.w, to, step };
    this.w = to;
    return change;
  }
}
