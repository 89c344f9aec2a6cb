/** One generation request as a latency model sees it: token counts only. */
export interface SeqRequest {
  readonly promptTokens: number;
  /** Tokens to generate (the billed completion length, ≥ 1). */
  readonly outputTokens: number;
  /**
   * Hashes of the prompt's successive full cache blocks, each covering everything before it
   * (so equal hashes mean an equal prefix). Used by the prefix cache; optional.
   */
  readonly prefixBlocks?: readonly number[];
  /**
   * vLLM's request `priority` under `--scheduling-policy priority`: lower is served first, ties first
   * come, first served (default 0). A batching scheduler orders its waiting queue by it and preempts
   * the lowest-priority sequence first; a hosted API's scheduler has no queue and ignores it.
   */
  readonly priority?: number;
}

/** What a latency model reports about one request while it runs (model time). */
export interface SeqEvents {
  /** The first output token exists (time to first token ends here). */
  onFirstToken?(): void;
  /** `generated` tokens exist so far; called once per engine step or decode tick. */
  onTokens?(generated: number): void;
  /** All `outputTokens` are generated. */
  onDone(): void;
}

/** A submitted request; cancel it when the client goes away. */
export interface SeqHandle {
  cancel(): void;
}

/** Current load, for `/metrics`-like introspection and tests. */
export interface SchedulerLoad {
  readonly running: number;
  readonly waiting: number;
  /** Running and waiting requests per priority value, lowest first (schedulers that order by priority). */
  readonly byPriority?: readonly PriorityLoad[];
}

/** Requests of one priority value, running and waiting (`/metrics`' per-priority gauges). */
export interface PriorityLoad {
  readonly priority: number;
  readonly running: number;
  readonly waiting: number;
}

/** The KV cache as `/metrics` reports it (a batching server; a hosted API has none to report). */
export interface KvCacheState {
  /** Fraction of the profile's KV cache blocks in use, 0–1. */
  readonly usage: number;
  /** Sequences preempted so far because the cache ran out (each is recomputed later). */
  readonly preemptions: number;
}

/**
 * A latency model: decides when each request's tokens appear. Contract: for every submitted,
 * uncancelled request `onDone` is called exactly once, after `onFirstToken`; nothing is called
 * after `cancel()` or `close()`.
 */
export interface LatencyScheduler {
  submit(req: SeqRequest, events: SeqEvents): SeqHandle;
  load(): SchedulerLoad;
  /** The KV cache's state, for schedulers that model one. */
  kvCache?(): KvCacheState;
  /** Drop every request and timer. */
  close(): void;
}
