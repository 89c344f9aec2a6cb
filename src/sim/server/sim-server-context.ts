import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Rng } from '../../core/rng';
import type { SimModel } from '../sim-model';
import { drawFault, type Fault, type FaultRates } from './faults';
import type { LatencyScheduler } from './latency-scheduler';
import type { SimMetrics } from './metrics';
import { WireError } from './openai-wire';
import type { RateLimiter } from './rate-limiter';
import type { SimTimer } from './sim-timer';

/** Everything a serve-sim route handler shares: the model, the latency model, faults, limits. */
export interface SimServerContext {
  readonly sim: SimModel;
  readonly scheduler: LatencyScheduler;
  readonly timer: SimTimer;
  /** Model time runs this many times faster than real time. */
  readonly timeScale: number;
  readonly limiter: RateLimiter | undefined;
  readonly faults: FaultRates;
  readonly faultRng: Rng;
  /** The model id `/v1/models` lists; a request naming another is answered 404 `model_not_found`. */
  readonly modelId: string;
  /** Longest prompt plus answer, in tokens (the profile's; `/v1/models` lists it as `max_model_len`). */
  readonly maxModelLen: number;
  /** Unix seconds for `created` fields. */
  created(): number;
  /** A fresh response id with a prefix (`chatcmpl-…`). */
  nextId(prefix: string): string;
  /** Requests held open by the `hang` fault, released when the server closes. */
  readonly hung: Set<ServerResponse>;
  /** Counters behind `/metrics`. */
  readonly metrics: SimMetrics;
  /** vLLM's `--scheduling-policy`: under `fcfs` a request with a non-zero `priority` is refused (400), as vLLM refuses it. */
  readonly schedulingPolicy: SchedulingPolicy;
}

/** vLLM's `--scheduling-policy` values: first come, first served, or by each request's `priority`. */
export type SchedulingPolicy = 'fcfs' | 'priority';

/** A route handler: answers one request whose JSON body (for POST) is already parsed. */
export type RouteHandler = (ctx: SimServerContext, req: IncomingMessage, res: ServerResponse, body: Record<string, unknown>) => Promise<void> | void;

/** Model milliseconds a 429 asks the client to wait when it comes from the fault injector. */
const FAULT_RETRY_AFTER_MS = 1000;

/**
 * Draw this request's fault and apply the ones that answer at once (5xx, 429). Returns the fault
 * still to apply (`hang`, `drop`) or `none`; for `hang` the response is parked until the client
 * or the server goes away.
 */
export function applyEarlyFault(ctx: SimServerContext, res: ServerResponse): Fault {
  const fault = drawFault(ctx.faults, ctx.faultRng);
  if (fault === 'error') {
    const unavailable = ctx.faultRng.chance(0.5);
    throw unavailable
      ? new WireError(503, 'The server is overloaded (injected fault).', 'server_error', 'service_unavailable')
      : new WireError(500, 'The server had an error while processing your request (injected fault).', 'server_error', 'internal_error');
  }
  if (fault === 'rate-limit') throw rateLimitError(ctx, FAULT_RETRY_AFTER_MS, 'requests', {});
  if (fault === 'hang') {
    ctx.hung.add(res);
    res.on('close', () => ctx.hung.delete(res));
  }
  return fault;
}

/** A 429 with `retry-after-ms`, `retry-after` and the limiter's `x-ratelimit-*` headers (real time). */
export function rateLimitError(ctx: SimServerContext, modelMs: number, limit: 'requests' | 'tokens', headers: Record<string, string>): WireError {
  const realMs = Math.max(1, Math.ceil(modelMs / ctx.timeScale));
  return new WireError(429, `Rate limit reached for ${limit} (simulated). Please try again in ${realMs}ms.`, limit, 'rate_limit_exceeded', null, {
    ...headers,
    'retry-after-ms': String(realMs),
    'retry-after': String(Math.max(1, Math.ceil(realMs / 1000))),
  });
}

/** Check the rate limiter (if the profile has one) for a request of `tokens` tokens; throws a 429. */
export function checkRateLimit(ctx: SimServerContext, tokens: number): Record<string, string> {
  if (!ctx.limiter) return {};
  const d = ctx.limiter.take(ctx.timer.now(), tokens);
  if (!d.ok) throw rateLimitError(ctx, d.retryAfterMs, d.limit, d.headers);
  return d.headers;
}
