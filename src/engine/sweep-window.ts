import { DEFAULT_AUTO } from './concurrency/auto-config';
import { WindowClimb, type ClimbStep } from './concurrency/window-climb';

/** A change of the number of runs at once, and why. */
export interface RunWindowChange {
  readonly from: number;
  readonly to: number;
  readonly step: ClimbStep;
}

/**
 * `ablate --parallel auto`: how many runs of a sweep go at once over one server, found the way the
 * adaptive controller finds a run's window (concurrency/window-climb.ts): a two-sided hill climb on
 * the server's measured output tokens per second, judged once per period on the sweep's clock
 * (the shared virtual clock, or the wall clock over HTTP). Runs share nothing but the server, so
 * adding one costs no accuracy; the climb stops where throughput stops rising.
 */
export class RunWindow {
  private readonly climb: WindowClimb;
  private w: number;
  private periodStart: number | undefined;
  private tokensAtStart = 0;

  constructor(private readonly runs: number, private readonly periodSeconds = DEFAULT_AUTO.periodSeconds * 4) {
    this.climb = new WindowClimb({ min: 1, max: Math.max(1, runs), growStep: DEFAULT_AUTO.growStep, minEfficiency: DEFAULT_AUTO.minEfficiency, holdPeriods: 1 });
    this.w = Math.min(2, Math.max(1, runs));
  }

  /** Runs at once now. */
  get limit(): number {
    return this.w;
  }

  /**
   * Tell it the sweep's clock (seconds) and the server's output tokens so far; returns the change
   * when a period ended and the climb moved the window. `waiting` is the number of runs not started.
   */
  observe(now: number, tokens: number, waiting: number): RunWindowChange | null {
    if (this.periodStart === undefined) {
      this.periodStart = now;
      this.tokensAtStart = tokens;
      return null;
    }
    const dt = now - this.periodStart;
    if (dt < this.periodSeconds) return null;
    const throughput = (tokens - this.tokensAtStart) / dt;
    this.periodStart = now;
    this.tokensAtStart = tokens;
    const step = this.climb.step(this.w, throughput, 'tokens/s', waiting > 0 && this.w < this.runs);
    if (!step || step.to === this.w) return null;
    const change = { from: this.w, to: Math.max(1, Math.min(this.runs, step.to)), step };
    this.w = change.to;
    return change;
  }
}
