import { VirtualTimer } from '../server/sim-timer';

/**
 * Event-loop turns in a row with no new activity and no hold that count as quiescence (after the
 * turn that noticed the last activity). Code that hops through `setImmediate` without touching
 * the clock is waited for up to this many hops in a row; the engine hops once between commits.
 */
const QUIET_TURNS = 3;
/** Timer events fired without yielding to the event loop at most (lets signals and I/O in). */
const MAX_BURST = 10_000;

/** What a virtual clock has done so far. */
export interface VirtualClockStats {
  /** Virtual milliseconds since the clock was made. */
  readonly now: number;
  /** Timer callbacks fired (a scheduler's step, a fast-forward jump, an arrival, a first token…). */
  readonly events: number;
  /** Times the clock stopped after an event that woke the JavaScript side, and waited for it to settle. */
  readonly settles: number;
  /** Holds outstanding now. */
  readonly holds: number;
}

/**
 * A discrete-event clock for running async code against a latency model in virtual time
 * (docs/backends.md, "Virtual time"). Model requests are timer events on `timer`; the clock fires them in
 * time order, never sleeping, and moves on to the next instant only when the JavaScript side is
 * quiescent:
 *
 * - no hold is outstanding: `hold(promise)` marks work that is not in virtual time (real I/O such
 *   as the code grader's sandbox) and stops the clock until it settles, so a slow sandbox never
 *   lets model time run ahead of the run. Held results reach their callers only once every hold
 *   has settled and the run is quiescent, in the order the holds were taken;
 * - `QUIET_TURNS` event-loop turns (setImmediate) in a row passed with the activity counter
 *   unchanged. Activity is a request submitted, answered or aborted, or a hold taken or released
 *   (`touch()`); a chain of promise continuations runs to its end inside one turn.
 *
 * At quiescence it first delivers held results (and waits for quiescence again); then, before
 * time moves, it runs its quiescence hooks (`onQuiescent`): the
 * model wrapper admits the requests submitted at this instant there, sorted by a deterministic
 * key, so which real I/O finished first never changes the result. Then it fires the next instant's
 * events, and the following ones, until one of them touches the clock (it answered a request):
 * the JavaScript side then runs, and the clock waits for quiescence again.
 *
 * Anything else that waits on real time (a `setTimeout`, a socket) must be held, or the clock may
 * move while it is outstanding.
 */
export class VirtualClock {
  /** The timer the latency model schedules on. */
  readonly timer = new VirtualTimer();
  private activity = 0;
  private seen = -1;
  private quiet = 0;
  private holds = 0;
  private scheduled = false;
  private events = 0;
  private settles = 0;
  private readonly hooks: Array<() => void> = [];
  /** Deliveries of held work, in the order it was held; called together once every hold has settled. */
  private heldResults: Array<() => void> = [];

  /** Virtual milliseconds since the clock was made. */
  now(): number {
    return this.timer.now();
  }

  /** Record activity on the JavaScript side (a request submitted, answered or aborted) and wake the clock. */
  touch(): void {
    this.activity++;
    this.wake();
  }

  /**
   * Keep the clock where it is until `work` settles, for everything the run awaits that is not a
   * model request in virtual time (real I/O). The returned promise settles like `work`, but only
   * once every hold outstanding has settled and the run is quiescent; held results are then
   * delivered in the order the holds were taken. So which real I/O finished first never changes
   * what the run does next: a result arrives at the same virtual instant, in the same order.
   */
  hold<T>(work: Promise<T>): Promise<T> {
    this.holds++;
    this.touch();
    return new Promise<T>((resolve, reject) => {
      let deliver: () => void = () => {};
      this.heldResults.push(() => deliver());
      const settle = (d: () => void) => {
        deliver = d;
        this.holds--;
        this.wake();
      };
      work.then((v) => settle(() => resolve(v)), (e: unknown) => settle(() => reject(e)));
    });
  }

  /** Run `fn` at every quiescence, before time moves (admit what was submitted at this instant). */
  onQuiescent(fn: () => void): void {
    this.hooks.push(fn);
  }

  stats(): VirtualClockStats {
    return { now: this.timer.now(), events: this.events, settles: this.settles, holds: this.holds };
  }

  private wake(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(this.turn);
  }

  private readonly turn = (): void => {
    this.scheduled = false;
    // A released hold wakes the clock again.
    if (this.holds > 0) return;
    if (this.activity !== this.seen) {
      this.seen = this.activity;
      this.quiet = 0;
      this.wake();
      return;
    }
    if (++this.quiet < QUIET_TURNS) {
      this.wake();
      return;
    }
    this.quiet = 0;
    // Held results first, in hold order, at this same instant; then wait for quiescence again.
    if (this.heldResults.length > 0) {
      const results = this.heldResults;
      this.heldResults = [];
      for (const deliver of results) deliver();
      this.touch();
      return;
    }
    for (const hook of this.hooks) hook();
    const before = this.activity;
    for (let burst = 0; ; burst++) {
      const next = this.timer.peek();
      // Idle: nothing scheduled. The next request (or hold) wakes the clock.
      if (next === undefined) return;
      if (burst >= MAX_BURST) { this.wake(); return; }
      // Every event of the instant fires, including those it schedules for the same instant.
      this.events += this.timer.run(next);
      if (this.activity !== before) {
        this.settles++;
        this.wake();
        return;
      }
    }
  };
}
