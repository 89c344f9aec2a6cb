import { CompletionAbortedError } from '../model';
import type { Endpoint } from './endpoint';

/** No endpoint at all serves what a request is bound to (none configured, or all removed). */
export class NoEndpointError extends Error {
  constructor(target: string | undefined) {
    super(target === undefined ? 'no endpoint in the pool' : `no endpoint in the pool serves "${target}"`);
    this.name = 'NoEndpointError';
  }
}

interface Waiter {
  readonly target: string | undefined;
  readonly avoid: ReadonlySet<Endpoint>;
  readonly isRetry: boolean;
  /** The request's scheduling priority (lower first; 0 when it sets none, as vLLM's default). */
  readonly priority: number;
  readonly resolve: (ep: Endpoint | undefined) => void;
  readonly reject: (err: Error) => void;
}

/**
 * Least-outstanding-requests routing with per-endpoint concurrency limits. A request goes to the
 * healthy endpoint (among those serving its binding) with the fewest requests in flight; ties go
 * to the one with the lowest recent milliseconds per token, then to configuration order.
 * Endpoints a request already failed on are used only when nothing else has room. When every
 * eligible endpoint is full the request waits in a queue ordered as vLLM's `--scheduling-policy
 * priority` orders its own: lower `priority` first, ties first come, first served (without
 * priorities every request is at 0, so the queue is FIFO).
 */
export class EndpointRouter {
  private readonly endpoints: Endpoint[] = [];
  private waiters: Waiter[] = [];
  private changeListeners: Array<() => void> = [];

  add(ep: Endpoint): void {
    this.endpoints.push(ep);
    this.changed();
  }

  /** Take an endpoint out of routing for good (requests in flight on it finish normally). */
  remove(ep: Endpoint): void {
    ep.active = false;
    this.changed();
  }

  /** Every endpoint ever added, removed ones included. */
  all(): readonly Endpoint[] {
    return this.endpoints;
  }

  /** The active endpoints a request bound to `target` may use (`undefined`: the ungrouped ones, else all). */
  candidates(target: string | undefined): Endpoint[] {
    const active = this.endpoints.filter((e) => e.active);
    if (target !== undefined) return active.filter((e) => e.serves(target));
    const ungrouped = active.filter((e) => e.config.group === undefined);
    return ungrouped.length > 0 ? ungrouped : active;
  }

  /**
   * Reserve a slot: resolves with the chosen endpoint (its attempt already counted), or with
   * `undefined` when no eligible endpoint is healthy right now. Waits while all healthy ones are
   * full. Rejects with NoEndpointError when nothing serves the target, and with
   * CompletionAbortedError when `signal` aborts while it waits (it then leaves the queue). While it
   * waits, `priority` places it in the queue (lower first, ties in arrival order).
   */
  acquire(target: string | undefined, avoid: ReadonlySet<Endpoint>, isRetry: boolean, signal?: AbortSignal, priority = 0): Promise<Endpoint | undefined> {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) { reject(new CompletionAbortedError(null, 0)); return; }
      const onAbort = () => {
        this.waiters = this.waiters.filter((x) => x !== w);
        reject(new CompletionAbortedError(null, 0));
      };
      const settle = <A extends unknown[]>(f: (...a: A) => void) => (...a: A) => { signal?.removeEventListener('abort', onAbort); f(...a); };
      const w: Waiter = { target, avoid, isRetry, priority, resolve: settle(resolve), reject: settle(reject) };
      if (this.place(w)) return;
      // After every waiter of the same or a lower priority: ties stay first come, first served.
      const at = this.waiters.findIndex((x) => x.priority > priority);
      this.waiters.splice(at === -1 ? this.waiters.length : at, 0, w);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** A slot was freed or health changed: hand slots to waiting requests in queue order (priority, then arrival). */
  changed(): void {
    this.waiters = this.waiters.filter((w) => !this.place(w));
    const listeners = this.changeListeners;
    this.changeListeners = [];
    for (const l of listeners) l();
  }

  /** Resolves at the next change (endpoint added, removed, freed, back in rotation). */
  nextChange(): { promise: Promise<void>; cancel: () => void } {
    let listener = () => {};
    const promise = new Promise<void>((resolve) => { listener = resolve; });
    this.changeListeners.push(listener);
    return { promise, cancel: () => { this.changeListeners = this.changeListeners.filter((l) => l !== listener); listener(); } };
  }

  /** Reject every waiting request (the pool is closing). */
  rejectAll(err: Error): void {
    const ws = this.waiters;
    this.waiters = [];
    for (const w of ws) w.reject(err);
  }

  /** Try to settle a waiter now; true when settled. */
  private place(w: Waiter): boolean {
    const cands = this.candidates(w.target);
    if (cands.length === 0) { w.reject(new NoEndpointError(w.target)); return true; }
    const healthy = cands.filter((e) => e.healthy);
    if (healthy.length === 0) { w.resolve(undefined); return true; }
    let best: Endpoint | undefined;
    let bestKey: [number, number, number, number] | undefined;
    healthy.forEach((e, i) => {
      if (e.outstanding >= e.config.maxConcurrency) return;
      const key: [number, number, number, number] = [w.avoid.has(e) ? 1 : 0, e.outstanding, e.msPerToken ?? 0, i];
      if (!bestKey || less(key, bestKey)) { best = e; bestKey = key; }
    });
    if (!best) return false;
    (best as Endpoint).recordStart(w.isRetry);
    w.resolve(best);
    return true;
  }
}

function less(a: readonly number[], b: readonly number[]): boolean {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return (a[i] as number) < (b[i] as number);
  return false;
}
