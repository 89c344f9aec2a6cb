import type OpenAI from 'openai';
import { loadedOpenAI } from './openai-sdk';
import { tolerantFetch } from './tolerant-fetch';
import type { EndpointConfig } from './openai-config';
import type { AttemptFailure } from './retry-policy';

/** Per-endpoint usage as the run summary records it. */
export interface EndpointUsage {
  /** Attempts sent (answered, failed or cancelled). */
  requests: number;
  retries: number;
  failures: number;
  /** Attempts the caller cancelled on the wire (speculative completion). */
  aborted: number;
  promptTokens: number;
  completionTokens: number;
}

/** Everything the pool knows about one endpoint, for `stats()`. Times in ms. */
export interface EndpointStats extends EndpointUsage {
  readonly name: string;
  /** Base URL without credentials or query. */
  readonly url: string;
  readonly model: string;
  readonly group: string | null;
  readonly maxConcurrency: number;
  /** False while taken out after repeated failures (until a probe brings it back). */
  readonly healthy: boolean;
  /** False once removed with `removeEndpoint` (kept in stats for the record). */
  readonly active: boolean;
  readonly outstanding: number;
  /** Attempts that timed out, were rate-limited (429); times taken out of rotation. */
  readonly timeouts: number;
  readonly rateLimited: number;
  readonly takenOut: number;
  /** Tokens of reasoning (think blocks / reasoning_content), part of completionTokens. */
  readonly reasoningTokens: number;
  /** Attempts the caller cancelled (speculative completion): neither successes nor failures. */
  readonly aborted: number;
  readonly latency: { count: number; meanMs: number; p50Ms: number; p95Ms: number; maxMs: number; meanTtftMs: number };
}

const RESERVOIR = 512;
/** Weight of the newest observation in the ms-per-token average used to break routing ties. */
const EWMA = 0.2;

/** The client's own options that tests and the pool may set. */
export interface EndpointClientOptions {
  readonly apiKey: string;
  readonly fetch?: typeof fetch;
}

/**
 * One endpoint of the pool: its `openai` client (with the client's own retries off: the pool
 * retries, counts and reroutes), its load and health, and its counters. Mutated only by the pool.
 */
export class Endpoint {
  private made: OpenAI | undefined;
  outstanding = 0;
  healthy = true;
  active = true;
  consecutiveFailures = 0;
  /** Recent milliseconds per output token (undefined until the first success). */
  msPerToken: number | undefined;
  private readonly u: EndpointUsage = { requests: 0, retries: 0, failures: 0, aborted: 0, promptTokens: 0, completionTokens: 0 };
  private timeouts = 0;
  private rateLimited = 0;
  private takenOut = 0;
  private reasoningTokens = 0;
  private aborted = 0;
  private readonly latencies: number[] = [];
  private latencyCount = 0;
  private latencySum = 0;
  private latencyMax = 0;
  private ttftSum = 0;

  constructor(readonly config: EndpointConfig, readonly name: string, readonly url: string, private readonly opts: EndpointClientOptions) {}

  /** The endpoint's `openai` client, made at its first use (the pool loads the SDK before its first request). */
  get client(): OpenAI {
    if (this.made) return this.made;
    const sdk = loadedOpenAI();
    if (!sdk) throw new Error('endpoint: the openai SDK is not loaded yet (await loadOpenAI() before the first request)');
    return (this.made = new sdk.default({
      apiKey: this.opts.apiKey,
      baseURL: this.config.baseURL,
      maxRetries: 0,
      // The pool enforces its own per-attempt timeout (streamed bodies included).
      timeout: 24 * 3600 * 1000,
      logLevel: 'off',
      // Bare NaN/Infinity tokens in a reply are quoted before the client parses it (tolerant-fetch.ts).
      fetch: tolerantFetch(this.opts.fetch ?? fetch),
    }));
  }

  /** Serves agents bound to `target` (its group or its model). */
  serves(target: string): boolean {
    return this.config.group === target || this.config.model === target;
  }

  recordStart(isRetry: boolean): void {
    this.outstanding++;
    this.u.requests++;
    if (isRetry) this.u.retries++;
  }

  recordSuccess(latencyMs: number, ttftMs: number, promptTokens: number, completionTokens: number, reasoningTokens: number): void {
    this.outstanding--;
    this.consecutiveFailures = 0;
    this.u.promptTokens += promptTokens;
    this.u.completionTokens += completionTokens;
    this.reasoningTokens += reasoningTokens;
    this.latencyCount++;
    this.latencySum += latencyMs;
    this.ttftSum += ttftMs;
    this.latencyMax = Math.max(this.latencyMax, latencyMs);
    this.latencies[(this.latencyCount - 1) % RESERVOIR] = latencyMs;
    const perToken = latencyMs / Math.max(1, completionTokens);
    this.msPerToken = this.msPerToken === undefined ? perToken : (1 - EWMA) * this.msPerToken + EWMA * perToken;
  }

  /** Count an attempt refused with a status its request knew to expect: a failure, but none of the endpoint's health. */
  recordRefusal(): void {
    this.outstanding--;
    this.u.failures++;
  }

  /**
   * Count a failed attempt; returns true when it pushes the endpoint past `threshold` consecutive
   * failures. `health` false: a failure, but not one more against the endpoint's health (a repeat of what it already counted).
   */
  recordFailure(f: AttemptFailure, threshold: number, health = true): boolean {
    this.outstanding--;
    this.u.failures++;
    if (f.kind === 'timeout') this.timeouts++;
    if (f.kind === 'rate-limit') this.rateLimited++;
    if (!f.unhealthy || !health) return false;
    this.consecutiveFailures++;
    if (this.healthy && this.consecutiveFailures >= threshold) {
      this.healthy = false;
      this.takenOut++;
      return true;
    }
    return false;
  }

  /** Time and completion tokens of the answers so far, summed: how fast a request's output comes (ms / tokens). */
  pace(): { ms: number; tokens: number } {
    return { ms: this.latencySum, tokens: this.u.completionTokens };
  }

  /** Mean completion tokens of the answers this endpoint gave so far (undefined before the first). */
  meanCompletionTokens(): number | undefined {
    return this.latencyCount > 0 ? this.u.completionTokens / this.latencyCount : undefined;
  }

  /** Count an attempt the caller cancelled: frees its slot, says nothing about the endpoint's health. */
  recordAbort(): void {
    this.outstanding--;
    this.aborted++;
    this.u.aborted++;
  }

  /** The summary's per-endpoint figures. */
  usage(): EndpointUsage {
    return { ...this.u };
  }

  stats(): EndpointStats {
    const sorted = this.latencies.slice().sort((a, b) => a - b);
    const q = (p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]! : 0);
    const n = this.latencyCount;
    return {
      name: this.name, url: this.url, model: this.config.model, group: this.config.group ?? null,
      maxConcurrency: this.config.maxConcurrency, healthy: this.healthy, active: this.active, outstanding: this.outstanding,
      ...this.u,
      timeouts: this.timeouts, rateLimited: this.rateLimited, takenOut: this.takenOut, reasoningTokens: this.reasoningTokens, aborted: this.aborted,
      latency: { count: n, meanMs: n ? this.latencySum / n : 0, p50Ms: q(0.5), p95Ms: q(0.95), maxMs: this.latencyMax, meanTtftMs: n ? this.ttftSum / n : 0 },
    };
  }
}
