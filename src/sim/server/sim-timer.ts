import { systemClock, type Clock } from '../../core/clock';

/**
 * The time source of serve-sim's latency models, in *model* milliseconds. The real timer maps
 * model time onto the wall clock (optionally sped up by `timeScale`); the virtual timer only
 * moves when told to, so the batching model can be checked in tests without waiting.
 */
export interface SimTimer {
  /** Model milliseconds since an arbitrary origin; monotonic. */
  now(): number;
  /** Call `fn` once `ms` model milliseconds from now; returns a cancel function. */
  after(ms: number, fn: () => void): () => void;
  /**
   * Call `fn` at model time `t` (at once if `t` has passed); returns a cancel function. Loops that
   * chain steps schedule by absolute time, so a late wake-up (timers are coarse, ~1 ms) is caught
   * up instead of stretching the model's timeline.
   */
  at(t: number, fn: () => void): () => void;
  /**
   * Model time of the next scheduled callback (undefined: none, or not known). Only a
   * discrete-event timer knows it; a latency model may use it to skip ahead exactly.
   */
  peek?(): number | undefined;
}

/** A timer on the real clock; `timeScale` 50 runs the model 50× faster than real time. */
export function realTimer(timeScale = 1, clock: Clock = systemClock): SimTimer {
  if (!(timeScale > 0)) throw new RangeError(`timeScale must be positive, got ${timeScale}`);
  const t0 = clock.now();
  const now = () => (clock.now() - t0) * timeScale;
  const after = (ms: number, fn: () => void): (() => void) => {
    if (ms <= 0) {
      const handle = setImmediate(fn);
      return () => clearImmediate(handle);
    }
    const handle = setTimeout(fn, ms / timeScale);
    return () => clearTimeout(handle);
  };
  return { now, after, at: (t, fn) => after(t - now(), fn) };
}

interface Pending {
  readonly at: number;
  readonly seq: number;
  readonly fn: () => void;
  cancelled: boolean;
}

/** A discrete-event timer for tests and analysis: `run*` fires callbacks in time order. */
export class VirtualTimer implements SimTimer {
  private t = 0;
  private seq = 0;
  private queue: Pending[] = [];

  now(): number {
    return this.t;
  }

  after(ms: number, fn: () => void): () => void {
    const p: Pending = { at: this.t + Math.max(0, ms), seq: this.seq++, fn, cancelled: false };
    // Kept sorted by (time, insertion order); the queues here are small, so insertion is cheap.
    let i = this.queue.length;
    while (i > 0 && (this.queue[i - 1]!.at > p.at)) i--;
    this.queue.splice(i, 0, p);
    return () => { p.cancelled = true; };
  }

  at(t: number, fn: () => void): () => void {
    return this.after(t - this.t, fn);
  }

  /** Fire every callback due up to `until` (default: until nothing is scheduled); returns how many fired. */
  run(until = Infinity, maxEvents = 10_000_000): number {
    let fired = 0;
    while (this.queue.length > 0 && this.queue[0]!.at <= until) {
      const p = this.queue.shift()!;
      if (p.cancelled) continue;
      this.t = Math.max(this.t, p.at);
      p.fn();
      if (++fired >= maxEvents) throw new Error(`VirtualTimer: more than ${maxEvents} events; runaway schedule?`);
    }
    if (until !== Infinity) this.t = Math.max(this.t, until);
    return fired;
  }

  /** Model time of the earliest callback still scheduled; undefined when none is. */
  peek(): number | undefined {
    while (this.queue.length > 0 && this.queue[0]!.cancelled) this.queue.shift();
    return this.queue[0]?.at;
  }

  /** Callbacks still scheduled. */
  pending(): number {
    return this.queue.filter((p) => !p.cancelled).length;
  }
}
