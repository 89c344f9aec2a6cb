import type { Rng } from '../../core/rng';
import { loadedOpenAI } from './openai-sdk';

/** Why one attempt failed. */
export type FailureKind = 'rate-limit' | 'server' | 'timeout' | 'connection' | 'client';

/** One failed attempt, classified for the retry loop and the endpoint's health. */
export interface AttemptFailure {
  readonly kind: FailureKind;
  readonly retryable: boolean;
  /** True when the failure says something about the endpoint's health (not a 429, not our request). */
  readonly unhealthy: boolean;
  readonly status?: number;
  /** What the server asked us to wait (`retry-after-ms`, then `retry-after`). */
  readonly retryAfterMs?: number;
  /** Unredacted message; the pool redacts before it leaves. */
  readonly message: string;
}

/** Thrown into an attempt when its timeout fires. */
export class AttemptTimeoutError extends Error {
  constructor(readonly timeoutMs: number) {
    super(`timed out after ${timeoutMs} ms`);
    this.name = 'AttemptTimeoutError';
  }
}

/** Longest server-requested wait we honour (a misconfigured server must not park a run for hours). */
const MAX_RETRY_AFTER_MS = 120_000;

/**
 * The wait a 429/503 asks for: `retry-after-ms` (milliseconds), else `retry-after` (seconds or
 * an HTTP date, against `nowWallMs`). Undefined when absent or unparsable.
 */
export function retryAfterMs(headers: { get(name: string): string | null } | undefined, nowWallMs: number): number | undefined {
  const ms = headers?.get('retry-after-ms');
  if (ms != null && ms.trim() !== '' && Number.isFinite(Number(ms))) return clamp(Number(ms));
  const ra = headers?.get('retry-after');
  if (ra == null || ra.trim() === '') return undefined;
  if (Number.isFinite(Number(ra))) return clamp(Number(ra) * 1000);
  const at = Date.parse(ra);
  return Number.isNaN(at) ? undefined : clamp(at - nowWallMs);
}

const clamp = (ms: number) => Math.min(MAX_RETRY_AFTER_MS, Math.max(0, ms));

/** Before the SDK is loaded no error is one of its classes: stand-ins nothing is an instance of. */
const NO_SDK = { APIConnectionError: class {}, APIError: class extends Error { status?: number; headers?: Headers }, APIUserAbortError: class {} };

/** Classify an error thrown by the `openai` client (or our timeout) for one attempt. */
export function classifyFailure(err: unknown, nowWallMs: number): AttemptFailure {
  if (err instanceof AttemptTimeoutError) return { kind: 'timeout', retryable: true, unhealthy: true, message: err.message };
  const { APIConnectionError, APIError, APIUserAbortError } = loadedOpenAI() ?? NO_SDK;
  if (err instanceof APIUserAbortError) return { kind: 'timeout', retryable: true, unhealthy: true, message: 'request aborted' };
  if (err instanceof APIConnectionError) {
    const cause = (err as { cause?: { message?: string; cause?: { code?: string } } }).cause;
    const detail = cause?.cause?.code ?? cause?.message;
    return { kind: 'connection', retryable: true, unhealthy: true, message: `connection error${detail ? ` (${detail})` : ''}` };
  }
  if (err instanceof APIError && typeof err.status === 'number') {
    const status = err.status;
    const should = err.headers?.get('x-should-retry');
    const wait = retryAfterMs(err.headers, nowWallMs);
    const kind: FailureKind = status === 429 ? 'rate-limit' : status >= 500 ? 'server' : status === 408 ? 'timeout' : 'client';
    const retryable = should === 'true' ? true : should === 'false' ? false : status === 408 || status === 409 || status === 429 || status >= 500;
    return { kind, retryable, unhealthy: status >= 500 || status === 408, status, retryAfterMs: wait, message: err.message };
  }
  // A reply that arrived but is no answer (content: null): the endpoint is up, the attempt is retried.
  if (err instanceof Error && err.name === 'MalformedReplyError') return { kind: 'server', retryable: true, unhealthy: false, message: `malformed reply: ${err.message}` };
  // A stream cut mid-body surfaces as a plain Error (terminated / premature close): a connection failure.
  const msg = (err as Error)?.message ?? String(err);
  return { kind: 'connection', retryable: true, unhealthy: true, message: msg };
}

/** Backoff settings. */
export interface BackoffOptions {
  readonly baseMs: number;
  readonly maxMs: number;
}

/**
 * Wait before retry number `retry` (1-based): exponential from `baseMs`, capped at `maxMs`,
 * with "equal jitter" (half fixed, half uniform from the seeded rng) so retries spread out.
 */
export function backoffMs(retry: number, opts: BackoffOptions, rng: Rng): number {
  const cap = Math.min(opts.maxMs, opts.baseMs * 2 ** Math.max(0, retry - 1));
  return cap / 2 + rng.next() * (cap / 2);
}

/** Sleep `ms`, resolving early (never rejecting) when `signal` aborts; the injectable default. */
export function realSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return sleepFor(ms, signal, true);
}

/** Like realSleep, but the timer does not keep the process alive (background health probes). */
export function backgroundSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return sleepFor(ms, signal, false);
}

function sleepFor(ms: number, signal: AbortSignal | undefined, ref: boolean): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) { resolve(); return; }
    const done = () => { clearTimeout(t); signal?.removeEventListener('abort', done); resolve(); };
    const t = setTimeout(done, Math.max(0, ms));
    if (!ref) t.unref();
    signal?.addEventListener('abort', done, { once: true });
  });
}

/** The sleep function the pool takes (`realSleep` by default; tests pass a fast or recording one). */
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;
