import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { systemClock, type Clock } from '../../core/clock';
import { createRng } from '../../core/rng';
import { SimModel } from '../sim-model';
import type { SimParams } from '../sim-params';
import type { WorldFile } from '../sim-world-file';
import { ApiScheduler } from './api-scheduler';
import { BatchScheduler } from './batch-scheduler';
import { chatHandler } from './chat-handler';
import { completionsHandler } from './completions-handler';
import { responsesHandler } from './responses-handler';
import { embeddingsHandler } from './embeddings-handler';
import { NO_FAULTS, parseFaults, type FaultRates } from './faults';
import { SimMetrics } from './metrics';
import type { LatencyScheduler } from './latency-scheduler';
import { parseJsonObject, readBody, sendError, sendJson, SERVE_SIM_OWNER, WireError } from './openai-wire';
import { getProfile, type LatencyProfile } from '../../llm/latency-profiles';
import { RateLimiter } from './rate-limiter';
import type { RouteHandler, SchedulingPolicy, SimServerContext } from './sim-server-context';
import { realTimer, type SimTimer } from './sim-timer';

/** One request as the server saw it (for tests that check what crosses the wire). */
export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/** Options of `startServeSim`. */
export interface ServeSimOptions {
  /** TCP port; 0 (the default here) picks a free one. */
  readonly port?: number;
  /** Interface to bind; default 127.0.0.1. */
  readonly host?: string;
  /** Latency profile name or object; default `qwen3-8b-h100-vllm`. */
  readonly profile?: string | LatencyProfile;
  /** Fault spec (`error=0.1,429=0.05,hang=0.02,drop=0.02`) or rates; the profile's 5xx rate otherwise. */
  readonly faults?: string | FaultRates;
  /** World, sampling, latency-jitter and fault seed; default 1. */
  readonly seed?: number;
  /** Run the latency model this many times faster than real time (tests); default 1. */
  readonly timeScale?: number;
  /** The model id listed by `/v1/models`; default `sim`. A request naming another model gets 404 `model_not_found`, as from vLLM. */
  readonly modelId?: string;
  /** api profiles: rate limits overriding the profile's. */
  readonly requestsPerMinute?: number;
  readonly tokensPerMinute?: number;
  /** Overrides of the simulated model's parameters. */
  readonly simParams?: Partial<SimParams>;
  /** A world (docs/calibration.md): its global and per-niche parameters over `simParams`. */
  readonly world?: Pick<WorldFile, 'params' | 'niches'>;
  /** Clock behind the real timer and `created` timestamps. */
  readonly clock?: Clock;
  /** A timer instead of the real one (virtual-time tests). */
  readonly timer?: SimTimer;
  /**
   * vLLM's `--scheduling-policy` (default `fcfs`): under `priority` the batch scheduler serves each
   * request by its body field `priority` (lower first, ties first come, first served); under `fcfs` a
   * non-zero `priority` is a 400, as from vLLM.
   */
  readonly schedulingPolicy?: SchedulingPolicy;
  /** Called for every request with its raw body, before it is handled. */
  readonly onRequest?: (r: RecordedRequest) => void;
}

/** A running serve-sim. */
export interface ServeSim {
  /** Base URL for OpenAI clients, e.g. `http://127.0.0.1:8000/v1`. */
  readonly url: string;
  readonly host: string;
  readonly port: number;
  readonly profile: LatencyProfile;
  readonly faults: FaultRates;
  readonly server: Server;
  readonly sim: SimModel;
  readonly scheduler: LatencyScheduler;
  /** The counters `/metrics` serves. */
  readonly metrics: SimMetrics;
  /**
   * Stop listening and cut every open connection and request at once, answered or not (so it
   * doubles as "the server crashed" in tests). Idempotent.
   */
  close(): Promise<void>;
}

const ROUTES: ReadonlyArray<readonly [string, RegExp, RouteHandler]> = [
  ['POST', /^\/v1\/chat\/completions$/, chatHandler],
  ['POST', /^\/v1\/completions$/, completionsHandler],
  ['POST', /^\/v1\/responses$/, responsesHandler],
  ['POST', /^\/v1\/embeddings$/, embeddingsHandler],
  ['GET', /^\/v1\/models$/, (ctx, _req, res) => sendJson(res, 200, { object: 'list', data: [modelObject(ctx)] })],
  ['GET', /^\/v1\/models\/.+$/, (ctx, req, res) => {
    const id = decodeURIComponent((req.url ?? '').split('?')[0]!.slice('/v1/models/'.length));
    if (id !== ctx.modelId) throw new WireError(404, `The model '${id}' does not exist`, 'invalid_request_error', 'model_not_found', 'model');
    sendJson(res, 200, modelObject(ctx));
  }],
  ['GET', /^\/health$/, (_ctx, _req, res) => { res.writeHead(200).end(); }],
  ['GET', /^\/metrics$/, (ctx, _req, res) => {
    const text = ctx.metrics.render(ctx.modelId, ctx.scheduler.load(), ctx.scheduler.kvCache?.());
    res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8', 'content-length': Buffer.byteLength(text) }).end(text);
  }],
];

function modelObject(ctx: SimServerContext): unknown {
  return { id: ctx.modelId, object: 'model', created: ctx.created(), owned_by: SERVE_SIM_OWNER, root: ctx.modelId, parent: null, max_model_len: ctx.maxModelLen };
}

/**
 * Start serve-sim: an OpenAI-compatible HTTP server backed by the simulated model (same
 * responders, same seed semantics: the seed key comes from `x-evochamber-seed-key`, else from the
 * body's `seed` and the prompt), with a latency profile run in real (or scaled) time and seeded
 * fault injection. Resolves once listening.
 */
export async function startServeSim(opts: ServeSimOptions = {}): Promise<ServeSim> {
  const seed = opts.seed ?? 1;
  const profile = typeof opts.profile === 'object' ? opts.profile : getProfile(opts.profile ?? 'qwen3-8b-h100-vllm');
  const base: FaultRates = { ...NO_FAULTS, error: profile.errorRate };
  const faults = typeof opts.faults === 'string' ? parseFaults(opts.faults, base) : (opts.faults ?? base);
  const timeScale = opts.timeScale ?? 1;
  const clock = opts.clock ?? systemClock;
  const timer = opts.timer ?? realTimer(timeScale, clock);
  const latencyRng = createRng(`${seed}/serve-sim/latency`);
  const scheduler: LatencyScheduler = profile.kind === 'batch'
    ? new BatchScheduler(profile, timer, latencyRng)
    : new ApiScheduler(profile, timer, latencyRng);
  const limiter = profile.kind === 'api'
    ? new RateLimiter(opts.requestsPerMinute ?? profile.requestsPerMinute, opts.tokensPerMinute ?? profile.tokensPerMinute, timeScale)
    : undefined;
  let ids = 0;
  const ctx: SimServerContext = {
    sim: new SimModel({ seed, ...(opts.simParams ? { params: opts.simParams } : {}), ...(opts.world ? { world: opts.world } : {}) }),
    scheduler, timer, timeScale, limiter, faults,
    faultRng: createRng(`${seed}/serve-sim/faults`),
    modelId: opts.modelId ?? 'sim',
    maxModelLen: profile.maxModelLen,
    created: () => Math.floor(Date.parse(clock.isoNow()) / 1000),
    nextId: (prefix) => `${prefix}-sim${(ids++).toString(36)}`,
    hung: new Set<ServerResponse>(),
    metrics: new SimMetrics(profile.maxModelLen),
    schedulingPolicy: opts.schedulingPolicy ?? 'fcfs',
  };

  const server = createServer((req, res) => { void handle(ctx, req, res, opts.onRequest); });
  // Keep-alive sockets idle longer than any client pool would, so the client never races a close.
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => { server.off('error', reject); resolve(); });
  });
  const addr = server.address() as AddressInfo;
  const host = opts.host ?? '127.0.0.1';
  const urlHost = host.includes(':') ? `[${host}]` : host;
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= new Promise<void>((resolve) => {
      scheduler.close();
      for (const res of ctx.hung) res.destroy();
      ctx.hung.clear();
      server.close(() => resolve());
      server.closeAllConnections();
    });
    return closing;
  };
  return {
    url: `http://${urlHost}:${addr.port}/v1`, host, port: addr.port, profile, faults, server, sim: ctx.sim, scheduler,
    metrics: ctx.metrics, close,
  };
}

async function handle(ctx: SimServerContext, req: IncomingMessage, res: ServerResponse, onRequest?: (r: RecordedRequest) => void): Promise<void> {
  const method = req.method ?? 'GET';
  const path = (req.url ?? '/').split('?')[0]!.replace(/\/+$/, '') || '/';
  try {
    const body = method === 'POST' || method === 'PUT' ? await readBody(req) : '';
    onRequest?.({ method, path, headers: req.headers, body });
    const route = ROUTES.find(([m, re]) => m === method && re.test(path));
    if (!route) throw new WireError(404, `Unknown request URL: ${method} ${path}.`, 'invalid_request_error', 'unknown_url');
    await route[2](ctx, req, res, method === 'POST' ? parseJsonObject(body) : {});
  } catch (err) {
    const e = err instanceof WireError
      ? err
      : new WireError(500, `The simulator failed: ${(err as Error)?.message ?? String(err)}`, 'server_error', 'internal_error');
    if (res.headersSent) res.destroy();
    else sendError(res, e);
  }
}
