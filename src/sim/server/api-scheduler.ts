import type { Rng } from '../../core/rng';
import type { LatencyScheduler, SchedulerLoad, SeqEvents, SeqHandle, SeqRequest } from './latency-scheduler';
import type { ApiProfile } from '../../llm/latency-profiles';
import type { SimTimer } from './sim-timer';

/** z-score of the 90th percentile of a standard normal. */
const Z90 = 1.2815515655446004;
/** How often a decoding request reports progress (model ms); streaming paces its chunks by it. */
const TICK_MS = 50;

/** Options of ApiScheduler. */
export interface ApiSchedulerOptions {
  /**
   * Report progress every 50 model ms while decoding (streaming paces its chunks by it); default
   * true. Off (virtual time), a request is one event for its first token and one for its end, and a
   * cancel reports the tokens generated until then through `onTokens` before dropping the request.
   */
  readonly ticks?: boolean;
}

/**
 * A hosted API's latency (docs/latency-profiles.md, `api-small`): every request gets a log-normal time to
 * first token and then decodes at a fixed speed, whatever else is open. Rate limits are not
 * modelled here (see RateLimiter): this only says when tokens appear.
 */
export class ApiScheduler implements LatencyScheduler {
  private readonly open = new Set<{ cancel: () => void }>();
  private readonly sigma: number;

  private readonly ticks: boolean;

  constructor(private readonly p: ApiProfile, private readonly timer: SimTimer, private readonly rng: Rng, opts: ApiSchedulerOptions = {}) {
    this.sigma = Math.log(p.ttftP90Ms / p.ttftMedianMs) / Z90;
    this.ticks = opts.ticks ?? true;
  }

  submit(req: SeqRequest, ev: SeqEvents): SeqHandle {
    const msPerToken = 1000 / this.p.tokensPerSecond;
    const ttft = this.p.ttftMedianMs * Math.exp(this.sigma * this.rng.normal());
    const t0 = this.timer.now() + ttft;
    if (!this.ticks) return this.submitUnticked(req, ev, ttft, t0, msPerToken);
    let cancelTimer = () => {};
    const entry = { cancel: () => { cancelTimer(); this.open.delete(entry); } };
    this.open.add(entry);
    const tick = () => {
      const elapsed = this.timer.now() - t0;
      const generated = elapsed >= (req.outputTokens - 1) * msPerToken - 1e-6
        ? req.outputTokens
        : Math.min(req.outputTokens, 1 + Math.floor(elapsed / msPerToken));
      ev.onTokens?.(generated);
      if (!this.open.has(entry)) return;
      if (generated >= req.outputTokens) { this.open.delete(entry); ev.onDone(); return; }
      const untilDone = t0 + (req.outputTokens - 1) * msPerToken - this.timer.now();
      cancelTimer = this.timer.after(Math.min(TICK_MS, Math.max(untilDone, 0)), tick);
    };
    cancelTimer = this.timer.after(ttft, () => {
      ev.onFirstToken?.();
      if (this.open.has(entry)) tick();
    });
    return entry;
  }

  /** A request as two events: first token at `t0`, done at `t0 + (n − 1) × msPerToken`. */
  private submitUnticked(req: SeqRequest, ev: SeqEvents, ttft: number, t0: number, msPerToken: number): SeqHandle {
    let cancelTimer = () => {};
    let first = false;
    const entry = {
      cancel: () => {
        if (!this.open.has(entry)) return;
        cancelTimer();
        this.open.delete(entry);
        if (first) ev.onTokens?.(Math.min(req.outputTokens, 1 + Math.floor((this.timer.now() - t0) / msPerToken)));
      },
    };
    this.open.add(entry);
    cancelTimer = this.timer.after(ttft, () => {
      first = true;
      ev.onFirstToken?.();
      if (!this.open.has(entry)) return;
      cancelTimer = this.timer.at(t0 + (req.outputTokens - 1) * msPerToken, () => {
        this.open.delete(entry);
        ev.onTokens?.(req.outputTokens);
        ev.onDone();
      });
    });
    return entry;
  }

  load(): SchedulerLoad {
    return { running: this.open.size, waiting: 0 };
  }

  close(): void {
    for (const e of [...this.open]) e.cancel();
  }
}
