import { notFoundHint } from './base-url-hint';
import { SERVE_SIM_OWNER } from './simulator-owner';
import { systemClock, type Clock } from '../../core/clock';
import { createRng, type Rng } from '../../core/rng';
import { createHashEmbedder } from '../hash-embedder';
import { CompletionAbortedError, type Completion, type CompletionRequest, type LanguageModel } from '../model';
import { chatAttempt } from './chat-attempt';
import { Endpoint, type EndpointStats, type EndpointUsage } from './endpoint';
import { EndpointRouter, NoEndpointError } from './endpoint-router';
import { OpenAIEmbedder } from './openai-embedder';
import { endpointConfigSchema, openaiModelSchema, type EndpointConfigInput, type OpenAIModelConfig } from './openai-config';
import { loadedOpenAI, loadOpenAI } from './openai-sdk';
import { AttemptTimeoutError, backgroundSleep, backoffMs, classifyFailure, realSleep, type AttemptFailure, type Sleep } from './retry-policy';
import { Redactor, resolveApiKey, safeUrlName } from './secrets';

/** Injected dependencies: everything that waits, chooses, or reaches outside. */
export interface PoolDeps {
  /** Seeded rng for backoff jitter. */
  readonly rng?: Rng;
  /** Measures latency and deadlines. */
  readonly clock?: Clock;
  /** Waits between retries and before health probes (tests pass a fast one). */
  readonly sleep?: Sleep;
  /** Where keys are read from (default `process.env`). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** The fetch the `openai` clients use. */
  readonly fetch?: typeof fetch;
}

/** Every attempt failed, or one failed in a way retrying cannot fix. The message never holds a key. */
export class ModelRequestError extends Error {
  constructor(message: string, readonly attempts: number, readonly status?: number) {
    super(message);
    this.name = 'ModelRequestError';
  }
}

/**
 * A pool of OpenAI-compatible endpoints behind the one `LanguageModel` interface (docs/backends.md, "GPU inference servers"):
 * least-outstanding routing within each endpoint's `maxConcurrency`, per-attempt timeouts,
 * retries with exponential backoff and seeded jitter that honour `retry-after-ms` /
 * `retry-after` and move to another endpoint, endpoints taken out after repeated failures and
 * probed back in (`GET /models`), endpoints added and removed while running, agents bound to
 * groups or models. Reasoning (`<think>`, `reasoning_content`) is kept out of `text`.
 * Contract: `complete` resolves, or rejects with a ModelRequestError once its attempts are spent;
 * no key ever appears in an error, a stat or a name. A request whose `signal` aborts is cancelled
 * wherever it is (queued for a slot, between retries, or on the wire: the HTTP request is aborted)
 * and rejects with CompletionAbortedError (tokens saved unknown; tokens generated estimated from
 * the attempt's duration at the endpoint's measured milliseconds per token, null before any
 * success); an abort is never retried and never counts against the endpoint's health. Health
 * counts consecutive failed attempts, but one request's 5xx replies from one endpoint count once
 * (a server that refuses one request again and again still answers), and an attempt answered with
 * one of the request's `knownRefusals` fails it at once: no retry, no health mark.
 */
export class OpenAIPoolModel implements LanguageModel {
  readonly name = 'openai';
  readonly config: OpenAIModelConfig;
  private readonly router = new EndpointRouter();
  private readonly redactor = new Redactor();
  private readonly probes = new Map<Endpoint, AbortController>();
  /** Endpoints whose model list said they are EvoChamber's serve-sim (found by `probeEndpoints`). */
  private readonly simulators = new Set<string>();
  private readonly embedder: OpenAIEmbedder | undefined;
  private readonly localEmbedder = createHashEmbedder();
  private readonly rng: Rng;
  private readonly clock: Clock;
  private readonly sleep: Sleep;
  private readonly probeSleep: Sleep;
  private readonly env: Readonly<Record<string, string | undefined>>;
  private closed = false;

  constructor(config: OpenAIModelConfig | Record<string, unknown>, private readonly deps: PoolDeps = {}) {
    const parsed = openaiModelSchema.safeParse({ backend: 'openai', ...config });
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new Error(`openai backend config: ${issue.path.join('.') || '(root)'}: ${issue.message}`);
    }
    this.config = parsed.data;
    this.rng = deps.rng ?? createRng('openai-pool');
    this.clock = deps.clock ?? systemClock;
    this.sleep = deps.sleep ?? realSleep;
    this.probeSleep = deps.sleep ?? backgroundSleep;
    this.env = deps.env ?? process.env;
    for (const e of this.config.endpoints) this.addEndpoint(e);
    const emb = this.config.embeddings;
    if (emb) {
      const first = this.config.endpoints[0]!;
      const baseURL = emb.baseURL ?? first.baseURL;
      const apiKey = resolveApiKey(this.env, emb.apiKeyEnv ?? (emb.baseURL ? undefined : first.apiKeyEnv));
      this.redactor.add(apiKey);
      const ep = new Endpoint({ baseURL, model: emb.model, maxConcurrency: 4 }, `embeddings:${emb.model}@${safeUrlName(baseURL)}`, safeUrlName(baseURL), { apiKey, ...(deps.fetch ? { fetch: deps.fetch } : {}) });
      this.embedder = new OpenAIEmbedder(ep, emb, { retries: this.config.retries, timeoutMs: this.config.timeoutMs, backoff: this.config.backoff, rng: this.rng.fork('embed'), clock: this.clock, sleep: this.sleep, redact: (s) => this.redactor.redact(s) });
    }
  }

  /** Add an endpoint while running; returns its (unique) name. */
  addEndpoint(input: EndpointConfigInput): string {
    const cfg = endpointConfigSchema.parse(input);
    const taken = new Set(this.router.all().map((e) => e.name));
    let name = cfg.name ?? `${cfg.model}@${safeUrlName(cfg.baseURL)}`;
    for (let i = 2; taken.has(name); i++) name = `${cfg.name ?? `${cfg.model}@${safeUrlName(cfg.baseURL)}`}#${i}`;
    const apiKey = resolveApiKey(this.env, cfg.apiKeyEnv);
    this.redactor.add(apiKey);
    this.router.add(new Endpoint(cfg, name, safeUrlName(cfg.baseURL), { apiKey, ...(this.deps.fetch ? { fetch: this.deps.fetch } : {}) }));
    return name;
  }

  /** Stop routing to an endpoint (requests in flight there finish); false when no such active endpoint. */
  removeEndpoint(name: string): boolean {
    const ep = this.router.all().find((e) => e.name === name && e.active);
    if (!ep) return false;
    this.probes.get(ep)?.abort();
    this.router.remove(ep);
    return true;
  }

  /** Latency and completion tokens of every answer so far, summed over the endpoints (ms per output token = ms / tokens). */
  pace(): { ms: number; tokens: number } {
    const out = { ms: 0, tokens: 0 };
    for (const e of this.router.all()) {
      const p = e.pace();
      out.ms += p.ms;
      out.tokens += p.tokens;
    }
    return out;
  }

  /** The base URL of every endpoint requests may be routed to now (removed ones left out). */
  baseURLs(): string[] {
    return this.router.all().filter((e) => e.active).map((e) => e.config.baseURL);
  }

  /** Live figures of every endpoint (removed ones included), by name. */
  stats(): Record<string, EndpointStats> {
    const out: Record<string, EndpointStats> = {};
    for (const e of this.router.all()) out[e.name] = e.stats();
    if (this.embedder) out[this.embedder.endpoint.name] = this.embedder.endpoint.stats();
    return out;
  }

  /** `text` with every configured key (and a 6+ character head or tail of one) replaced by `***`. */
  redact(text: string): string {
    return this.redactor.redact(text);
  }

  /** Per-endpoint usage for the run summary. */
  usage(): Record<string, EndpointUsage> {
    return Object.fromEntries(Object.entries(this.stats()).map(([n, s]) => [n, {
      requests: s.requests, retries: s.retries, failures: s.failures, aborted: s.aborted, promptTokens: s.promptTokens, completionTokens: s.completionTokens,
    }]));
  }

  /** The binding of an agent: its entry in `bindings`, else `"*"`, else none. */
  bindingFor(agentId: string | undefined): string | undefined {
    const b = this.config.bindings ?? {};
    return (agentId !== undefined ? b[agentId] : undefined) ?? b['*'];
  }

  async complete(req: CompletionRequest): Promise<Completion> {
    if (!loadedOpenAI()) await loadOpenAI();
    const target = this.bindingFor(req.agentId);
    const avoid = new Set<Endpoint>();
    const attempts = this.config.retries + 1;
    // An HTTP server says neither how long the answer would have been nor how far it got. How far is
    // estimated from the time the attempt ran at the endpoint's pace; the saving as the endpoint's
    // mean answer length so far less that (an estimate, flagged so; the journal keeps it, so a
    // resumed run counts the same saving).
    const cancelled = (ep: Endpoint, sentAt: number) => {
      const generated = ep.msPerToken ? Math.round(Math.max(0, this.clock.now() - sentAt) / ep.msPerToken) : null;
      const mean = ep.meanCompletionTokens();
      return new CompletionAbortedError(mean === undefined ? null : Math.max(0, Math.round(mean) - (generated ?? 0)), generated, true);
    };
    if (req.signal?.aborted) throw new CompletionAbortedError(null, 0);
    let last: { ep?: Endpoint; f: AttemptFailure } | undefined;
    // Endpoints this request already met a 5xx reply on: its retries there say nothing more about them.
    const answered5xx = new Set<Endpoint>();
    for (let a = 0; a < attempts; a++) {
      if (this.closed) throw new ModelRequestError('openai backend: the pool is closed', a);
      if (a > 0) await this.sleep(last?.f.retryAfterMs ?? backoffMs(a, this.config.backoff, this.rng), req.signal);
      if (req.signal?.aborted) throw new CompletionAbortedError(null, 0);
      let ep: Endpoint | undefined;
      try {
        ep = await this.acquire(target, avoid, a > 0, req.signal, req.priority);
      } catch (err) {
        if (err instanceof CompletionAbortedError) throw err; // cancelled while queued: nothing was generated
        if (err instanceof NoEndpointError) throw new ModelRequestError(`openai backend: ${err.message}${describe(req)}`, a);
        throw err;
      }
      if (!ep) { last = { f: { kind: 'connection', retryable: true, unhealthy: false, message: 'no healthy endpoint (all taken out after repeated failures)' } }; continue; }
      const sentAt = this.clock.now();
      try {
        const r = await this.timed(this.config.timeoutMs, req.signal, (signal) =>
          chatAttempt(ep, req, { stream: this.config.stream, ...(this.config.maxTokens ? { maxTokens: this.config.maxTokens } : {}), signal, clock: this.clock }));
        ep.recordSuccess(r.totalMs, r.ttftMs, r.promptTokens, r.completionTokens, r.reasoningTokens);
        this.router.changed();
        // A server may echo what it was sent (the Authorization header among it): no key leaves the pool.
        return {
          text: this.redactor.redact(r.text),
          usage: { promptTokens: r.promptTokens, completionTokens: r.completionTokens, ...(r.usageProblem ? { unknown: r.usageProblem } : {}) },
          timing: { ttftMs: r.ttftMs, totalMs: r.totalMs },
          model: r.model,
          ...(r.reasoning ? { reasoning: this.redactor.redact(r.reasoning) } : {}),
          ...(r.finishReason !== undefined ? { finishReason: r.finishReason } : {}),
          ...(r.finishReason === 'length' && r.maxTokens !== undefined ? { maxTokens: r.maxTokens } : {}),
        };
      } catch (err) {
        // The caller's abort (the client's APIUserAbortError, or whatever the cut request threw): no retry, no health mark.
        if (req.signal?.aborted) {
          const aborted = cancelled(ep, sentAt);
          ep.recordAbort();
          this.router.changed();
          throw aborted;
        }
        const f = classifyFailure(err, Date.parse(this.clock.isoNow()));
        // A refusal the caller already knows for this kind of request: the server answered, so the
        // endpoint's health is untouched, and retrying would only meet it again.
        if (f.status !== undefined && req.knownRefusals?.includes(f.status)) {
          ep.recordRefusal();
          this.router.changed();
          throw this.failure(req, a + 1, { ep, f }, false, 'a known refusal of this kind of request, not retried');
        }
        const is5xx = f.status !== undefined && f.status >= 500;
        const tookOut = ep.recordFailure(f, this.config.health.failureThreshold, !(is5xx && answered5xx.has(ep)));
        if (is5xx) answered5xx.add(ep);
        if (tookOut) this.startProbe(ep);
        this.router.changed();
        avoid.add(ep);
        last = { ep, f };
        if (!f.retryable) throw this.failure(req, a + 1, last, false);
        // The attempt that reveals an outage (its endpoint was the last healthy one) is not held
        // against the request: it waits for an endpoint to come back instead of failing its task.
        if (tookOut && this.router.candidates(target).every((e) => !e.healthy)) a--;
      }
    }
    throw this.failure(req, attempts, last, true);
  }

  /** True when some active endpoint is healthy (the engine pauses while none is). */
  available(): boolean {
    return this.router.all().some((e) => e.active && e.healthy);
  }

  /** Resolves at the next routing change: an endpoint freed, taken out, probed back, added or removed. */
  nextHealthChange(): Promise<void> {
    return this.router.nextChange().promise;
  }

  /**
   * Ask every active endpoint (and the embeddings endpoint) for `GET /models`, all at once, with a
   * short timeout and no retries. Rejects with one line naming the first endpoint that cannot be
   * reached, or that does not list its configured model; keys never appear.
   */
  async probeEndpoints(timeoutMs = 5_000): Promise<void> {
    if (!loadedOpenAI()) await loadOpenAI();
    const eps = [...this.router.all().filter((e) => e.active), ...(this.embedder ? [this.embedder.endpoint] : [])];
    const results = await Promise.all(eps.map(async (ep) => {
      try {
        const page = await this.timed(timeoutMs, undefined, (signal) => ep.client.models.list({ signal }));
        const ids = page.data.map((m) => m.id);
        if (page.data.some((m) => m.id === ep.config.model && m.owned_by === SERVE_SIM_OWNER)) this.simulators.add(ep.url);
        if (ids.length > 0 && !ids.includes(ep.config.model)) {
          return `${ep.url} does not serve model "${ep.config.model}" (it lists ${ids.slice(0, 5).join(', ')}${ids.length > 5 ? ', …' : ''})`;
        }
        return null;
      } catch (err) {
        const f = classifyFailure(err, Date.parse(this.clock.isoNow()));
        const why = f.status ? `HTTP ${f.status}` : f.kind === 'timeout' ? `no answer within ${timeoutMs} ms` : f.message;
        if (f.status === 404) return `the endpoint ${ep.url} has no /models (GET /models: HTTP 404)${notFoundHint(ep.config.baseURL)}`;
        return `cannot reach the endpoint ${ep.url} (GET /models: ${why}); is the server running and the address right?`;
      }
    }));
    const problem = results.find((r) => r !== null);
    if (problem) throw new Error(this.redactor.redact(problem));
  }

  /** The endpoints (by URL name) that `probeEndpoints` found to be EvoChamber's serve-sim. */
  simulatorEndpoints(): string[] {
    return [...this.simulators];
  }

  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    if (this.embedder && !loadedOpenAI()) await loadOpenAI();
    return this.embedder ? this.embedder.embed(texts) : this.localEmbedder.embed([...texts]);
  }

  /** Stop health probes and reject queued requests. Idempotent. */
  async close(): Promise<void> {
    this.closed = true;
    for (const c of this.probes.values()) c.abort();
    this.probes.clear();
    this.router.rejectAll(new ModelRequestError('openai backend: the pool is closed', 0));
  }

  /**
   * A slot on a healthy endpoint. While none is healthy (an outage) it waits for the probes to
   * bring one back, however long that takes: the engine stops starting tasks meanwhile and decides
   * when the outage has lasted too long (`outageTimeoutMs`), closing the pool.
   */
  private async acquire(target: string | undefined, avoid: ReadonlySet<Endpoint>, isRetry: boolean, signal?: AbortSignal, priority?: number): Promise<Endpoint | undefined> {
    for (;;) {
      const ep = await this.router.acquire(target, avoid, isRetry, signal, priority);
      if (ep || this.closed) return ep;
      const change = this.router.nextChange();
      const stop = new AbortController();
      const onAbort = () => stop.abort();
      signal?.addEventListener('abort', onAbort, { once: true });
      await Promise.race([change.promise, this.sleep(this.config.health.cooldownMs, stop.signal)]);
      signal?.removeEventListener('abort', onAbort);
      change.cancel();
      stop.abort();
      if (signal?.aborted) throw new CompletionAbortedError(null, 0);
    }
  }

  /**
   * Run one attempt with a deadline; the attempt's signal aborts when it passes, or when `caller`
   * (the request's own signal) aborts.
   */
  private async timed<T>(ms: number, caller: AbortSignal | undefined, run: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const ctl = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => { timedOut = true; ctl.abort(); }, ms);
    timer.unref();
    const onAbort = () => ctl.abort();
    caller?.addEventListener('abort', onAbort, { once: true });
    try {
      if (caller?.aborted) ctl.abort();
      return await run(ctl.signal);
    } catch (err) {
      throw timedOut ? new AttemptTimeoutError(ms) : err;
    } finally {
      clearTimeout(timer);
      caller?.removeEventListener('abort', onAbort);
    }
  }

  /** Probe a taken-out endpoint with `GET /models` after a cooldown (doubling, up to 8×) until it answers. */
  private startProbe(ep: Endpoint): void {
    if (this.probes.has(ep) || this.closed) return;
    const ctl = new AbortController();
    this.probes.set(ep, ctl);
    const { cooldownMs } = this.config.health;
    void (async () => {
      let wait = cooldownMs;
      while (!ctl.signal.aborted && ep.active && !ep.healthy) {
        await this.probeSleep(wait, ctl.signal);
        if (ctl.signal.aborted) break;
        try {
          await this.timed(Math.min(this.config.timeoutMs, 10_000), undefined, (signal) => ep.client.models.list({ signal }));
          ep.healthy = true;
          ep.consecutiveFailures = 0;
          this.router.changed();
        } catch {
          wait = Math.min(wait * 2, cooldownMs * 8);
        }
      }
      if (this.probes.get(ep) === ctl) this.probes.delete(ep);
    })();
  }

  private failure(req: CompletionRequest, attempts: number, last: { ep?: Endpoint; f: AttemptFailure } | undefined, exhausted: boolean, why = 'not retryable'): ModelRequestError {
    const where = last?.ep ? ` on ${last.ep.name}` : '';
    const what = last ? `${last.f.kind}${where}: ${last.f.message}` : 'no attempt made';
    const how = exhausted ? `failed after ${attempts} attempt${attempts === 1 ? '' : 's'}` : `failed (${last?.f.status ?? 'error'}, ${why})`;
    return new ModelRequestError(this.redactor.redact(`openai backend: request ${how}${describe(req)}; last error ${what}`), attempts, last?.f.status);
  }
}

function describe(req: CompletionRequest): string {
  const parts = [req.taskId && `task ${req.taskId}`, `stage ${req.stage}`, req.agentId && `agent ${req.agentId}`].filter(Boolean);
  return ` (${parts.join(', ')})`;
}
