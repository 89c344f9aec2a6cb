import { hash32 } from '../../core/hash';
import { createRng } from '../../core/rng';
import { CompletionAbortedError, type Completion, type CompletionRequest, type LanguageModel } from '../../llm/model';
import { ApiScheduler } from '../server/api-scheduler';
import { BatchScheduler } from '../server/batch-scheduler';
import { prefixBlocks } from '../server/generation';
import type { LatencyScheduler, SeqHandle } from '../server/latency-scheduler';
import { getProfile, type LatencyProfile } from '../../llm/latency-profiles';
import { RateLimiter } from '../server/rate-limiter';
import { maxTokensPerSecond } from '../../llm/server-capacity';
import { VirtualClock } from './virtual-clock';

/** Options of VirtualServerModel. */
export interface VirtualServerOptions {
  /** Latency profile (name or object), as serve-sim's `--profile`. */
  readonly profile: string | LatencyProfile;
  /** Seed of the latency model's jitter; the same as serve-sim's `--seed` gives the same draws. */
  readonly seed: number;
  /** The clock to run on (default: a new one). */
  readonly clock?: VirtualClock;
  /** Batch profiles: skip ahead over pure decode steps (exact; default true). */
  readonly fastForward?: boolean;
}

/** What a virtual server did over a run. */
export interface VirtualServerStats {
  readonly profile: string;
  /** Virtual seconds from the clock's start to the end of the last request (answered or aborted). */
  readonly virtualSeconds: number;
  /** Tokens the server generated: every answered request's completion, plus what aborted ones had generated. */
  readonly generatedTokens: number;
  /** generatedTokens / virtualSeconds (0 when no time passed). */
  readonly tokensPerSecond: number;
  /** The server's maximum output tokens/s for this run's request shape (server-capacity.ts); null when nothing was generated. */
  readonly maxTokensPerSecond: number | null;
  /** tokensPerSecond / maxTokensPerSecond; null when the maximum is. */
  readonly utilization: number | null;
  readonly requests: number;
  readonly aborted: number;
  /** Admissions the rate limiter pushed back (api profiles); in virtual time they wait, never 429. */
  readonly rateLimited: number;
  /** Timer events fired and quiescence waits of the clock. */
  readonly events: number;
  readonly settles: number;
  /** Virtual ms from submission to the last token, summed over answered requests, and their output tokens: the pace a request gets. */
  readonly paceMs: number;
  readonly paceTokens: number;
}

type State = 'preparing' | 'queued' | 'running' | 'done';

interface Call {
  readonly req: CompletionRequest;
  readonly tenant: Tenant;
  /** The scheduling priority it was submitted with (lower first). */
  readonly priority: number;
  readonly submittedAt: number;
  readonly resolve: (c: Completion) => void;
  readonly reject: (e: unknown) => void;
  state: State;
  reply?: Completion;
  /** Admission order key within one instant. */
  key?: string;
  promptText?: string;
  handle?: SeqHandle;
  generated: number;
  firstAt?: number;
  detach?: () => void;
}

/** What the server keeps per tenant (a run of a sweep; the only one for a run alone). */
interface Tally {
  generatedTokens: number;
  requests: number;
  aborted: number;
  rateLimited: number;
  promptSum: number;
  contextWeighted: number;
  lastEnd: number;
  paceMs: number;
  paceTokens: number;
}

const emptyTally = (): Tally => ({ generatedTokens: 0, requests: 0, aborted: 0, rateLimited: 0, promptSum: 0, contextWeighted: 0, lastEnd: 0, paceMs: 0, paceTokens: 0 });

/** One tenant of a VirtualServer: a run, with the model that answers it and the key that orders its requests among the others'. */
interface Tenant {
  readonly inner: LanguageModel;
  /** Put before each request's admission key ('' for a run alone, so a run alone keeps its order). */
  readonly key: string;
  /** Virtual ms when the tenant joined (its run started). */
  readonly since: number;
  /** The priority its requests carry when they set none (a sweep's critical-path policy); 0 without. */
  readonly priority?: () => number;
  readonly tally: Tally;
}

/**
 * serve-sim's latency model in virtual time, shared by every run that joins it (docs/backends.md,
 * "Virtual time"; a sweep's runs join one server, as they would share one GPU server): one scheduler, one
 * discrete-event clock. Each request is answered at once by its run's own model and delivered when
 * the profile's BatchScheduler or ApiScheduler says its last token exists. Requests submitted at one
 * instant are admitted in the order of (run key, seed key, prompt hash), whatever order the runs
 * made them in; the batch scheduler then serves them by priority (vLLM's `--scheduling-policy
 * priority`: a request's own `priority`, else its run's, else 0; lower first). With an api profile the rate limiter delays an admission until it fits, as a client
 * honouring retry-after would, instead of answering 429.
 */
export class VirtualServer {
  readonly clock: VirtualClock;
  readonly profile: LatencyProfile;
  private readonly scheduler: LatencyScheduler;
  private readonly limiter: RateLimiter | undefined;
  private queued: Call[] = [];
  private readonly all = emptyTally();

  constructor(opts: VirtualServerOptions) {
    this.clock = opts.clock ?? new VirtualClock();
    this.profile = typeof opts.profile === 'string' ? getProfile(opts.profile) : opts.profile;
    // The same stream serve-sim draws its latency jitter from for this seed.
    const rng = createRng(`${opts.seed}/serve-sim/latency`);
    this.scheduler = this.profile.kind === 'batch'
      ? new BatchScheduler(this.profile, this.clock.timer, rng, { fastForward: opts.fastForward ?? true })
      : new ApiScheduler(this.profile, this.clock.timer, rng, { ticks: false });
    this.limiter = this.profile.kind === 'api' ? new RateLimiter(this.profile.requestsPerMinute, this.profile.tokensPerMinute) : undefined;
    this.clock.onQuiescent(() => this.admitQueued());
  }

  /**
   * A run joins: its requests are answered by `inner` and timed by this server. `key` sets the
   * order of its requests among other runs' at one instant (each run of a sweep has its own);
   * `priority`, when given, is read as each request is submitted and becomes its scheduling priority
   * (vLLM's `priority`: lower first) unless the request sets its own.
   */
  join(inner: LanguageModel, key = '', priority?: () => number): VirtualServerModel {
    return new VirtualServerModel(inner, { server: this, key, ...(priority ? { priority } : {}) });
  }

  /** What the server did for everyone: the sweep's virtual time and utilization. */
  stats(): VirtualServerStats {
    return this.statsOf(this.all, 0);
  }

  /** @internal One tenant's figures, from when it joined. */
  statsOf(t: Tally, since: number): VirtualServerStats {
    const virtualSeconds = Math.max(0, t.lastEnd - since) / 1000;
    const tokensPerSecond = virtualSeconds > 0 ? t.generatedTokens / virtualSeconds : 0;
    const max = t.requests > 0 && t.generatedTokens > 0
      ? maxTokensPerSecond(this.profile, {
        meanPromptTokens: t.promptSum / t.requests,
        meanCompletionTokens: t.generatedTokens / t.requests,
        meanDecodeContext: t.contextWeighted / t.generatedTokens,
      })
      : null;
    const c = this.clock.stats();
    return {
      profile: this.profile.name, virtualSeconds, generatedTokens: t.generatedTokens, tokensPerSecond,
      maxTokensPerSecond: max, utilization: max ? tokensPerSecond / max : null,
      requests: t.requests, aborted: t.aborted, rateLimited: t.rateLimited, events: c.events, settles: c.settles,
      paceMs: t.paceMs, paceTokens: t.paceTokens,
    };
  }

  /** @internal Submit one tenant's request. */
  submit(tenant: Tenant, req: CompletionRequest): Promise<Completion> {
    this.clock.touch();
    if (req.signal?.aborted) return Promise.reject(new CompletionAbortedError(null, 0));
    return new Promise<Completion>((resolve, reject) => {
      const priority = req.priority ?? tenant.priority?.() ?? 0;
      const call: Call = { req, tenant, priority, submittedAt: this.clock.now(), resolve, reject, state: 'preparing', generated: 0 };
      if (req.signal) {
        const onAbort = () => this.abort(call);
        req.signal.addEventListener('abort', onAbort, { once: true });
        call.detach = () => req.signal!.removeEventListener('abort', onAbort);
      }
      // The answer is computed now; holding it keeps the clock still if `inner` is not instant.
      this.clock.hold(tenant.inner.complete(req)).then((reply) => {
        if (call.state !== 'preparing') return;
        call.reply = reply;
        call.promptText = req.messages.map((m) => `${m.role}\n${m.content}`).join('\n');
        const own = `${req.seedKey ?? ''}\u0000${hash32(call.promptText).toString(36).padStart(7, '0')}\u0000${req.taskId ?? ''}\u0000${req.agentId ?? ''}\u0000${req.stage}`;
        call.key = tenant.key === '' ? own : `${tenant.key}\u0001${own}`;
        call.state = 'queued';
        this.queued.push(call);
      }, (err: unknown) => {
        if (call.state !== 'preparing') return;
        this.settle(call, 'done');
        reject(err);
      });
    });
  }

  /** At quiescence: admit this instant's requests in key order. */
  private admitQueued(): void {
    if (this.queued.length === 0) return;
    const batch = this.queued.sort((a, b) => (a.key! < b.key! ? -1 : a.key! > b.key! ? 1 : 0));
    this.queued = [];
    for (const call of batch) this.admit(call);
  }

  private admit(call: Call): void {
    if (call.state !== 'queued') return;
    const { promptTokens, completionTokens } = call.reply!.usage;
    if (this.limiter) {
      const d = this.limiter.take(this.clock.now(), promptTokens + completionTokens);
      if (!d.ok) {
        for (const t of this.tallies(call)) t.rateLimited++;
        this.clock.timer.after(d.retryAfterMs, () => this.admit(call));
        return;
      }
    }
    call.state = 'running';
    for (const t of this.tallies(call)) {
      t.requests++;
      t.promptSum += promptTokens;
    }
    const outputTokens = Math.max(1, completionTokens);
    call.handle = this.scheduler.submit({ promptTokens, outputTokens, prefixBlocks: prefixBlocks(call.promptText!), priority: call.priority }, {
      onFirstToken: () => { call.firstAt = this.clock.now(); },
      onTokens: (g) => { call.generated = g; },
      onDone: () => {
        if (call.state !== 'running') return;
        const now = this.clock.now();
        this.account(call, outputTokens, now);
        for (const t of this.tallies(call)) {
          t.paceMs += now - call.submittedAt;
          t.paceTokens += outputTokens;
        }
        this.settle(call, 'done');
        const timing = { ttftMs: (call.firstAt ?? now) - call.submittedAt, totalMs: now - call.submittedAt };
        call.resolve({ ...call.reply!, timing });
      },
    });
  }

  /** @internal Cancel a call its caller aborted. */
  abort(call: Call): void {
    if (call.state === 'done') return;
    const prior = call.state;
    this.settle(call, 'done');
    for (const t of this.tallies(call)) t.aborted++;
    if (prior === 'running') {
      // A fast-forwarded scheduler reports the tokens generated so far through onTokens first.
      call.handle!.cancel();
      this.account(call, call.generated, this.clock.now());
    } else if (prior === 'queued') {
      // Not in the list when the rate limiter is holding it back (its retry then finds it done).
      const i = this.queued.indexOf(call);
      if (i >= 0) this.queued.splice(i, 1);
    }
    const out = call.reply ? Math.max(1, call.reply.usage.completionTokens) : null;
    call.reject(new CompletionAbortedError(out === null ? null : out - call.generated, call.generated));
  }

  /** The tallies a call counts in: the server's, and its tenant's. */
  private tallies(call: Call): Tally[] {
    return [this.all, call.tenant.tally];
  }

  private account(call: Call, generated: number, now: number): void {
    for (const t of this.tallies(call)) {
      t.generatedTokens += generated;
      t.contextWeighted += generated * (call.reply!.usage.promptTokens + generated / 2);
      t.lastEnd = Math.max(t.lastEnd, now);
    }
  }

  private settle(call: Call, state: State): void {
    call.state = state;
    call.detach?.();
    this.clock.touch();
  }
}

/**
 * A LanguageModel that answers with `inner` (the simulated model, or a journal in front of it)
 * at once and delivers each answer when serve-sim's latency model says its last token exists, in
 * virtual time (docs/backends.md, "Virtual time"): a run on a VirtualServer of its own, or one of a sweep's
 * runs on a shared one (`VirtualServer.join`). `timing` is in virtual milliseconds. An aborted
 * request is cancelled in the scheduler and rejects with CompletionAbortedError(tokens not
 * generated, tokens generated); one already answered resolves.
 */
export class VirtualServerModel implements LanguageModel {
  readonly name: string;
  readonly clock: VirtualClock;
  readonly profile: LatencyProfile;
  readonly server: VirtualServer;
  private readonly tenant: Tenant;

  /** A run alone on a server of its own (`opts` as VirtualServer's), or, with `opts.server`, joining a shared one. */
  constructor(inner: LanguageModel, opts: VirtualServerOptions | { readonly server: VirtualServer; readonly key: string; readonly priority?: () => number }) {
    this.name = inner.name;
    this.server = 'server' in opts ? opts.server : new VirtualServer(opts);
    this.clock = this.server.clock;
    this.profile = this.server.profile;
    this.tenant = {
      inner, key: 'key' in opts ? opts.key : '', since: this.clock.now(), tally: emptyTally(),
      ...('priority' in opts && opts.priority ? { priority: opts.priority } : {}),
    };
  }

  /** Keep virtual time still until `work` settles (see VirtualClock.hold). */
  hold<T>(work: Promise<T>): Promise<T> {
    return this.clock.hold(work);
  }

  complete(req: CompletionRequest): Promise<Completion> {
    return this.server.submit(this.tenant, req);
  }

  embed(texts: readonly string[]): Promise<Float32Array[]> {
    return this.clock.hold(this.tenant.inner.embed(texts));
  }

  /** What the server did for this run, from when it joined. */
  stats(): VirtualServerStats {
    return this.server.statsOf(this.tenant.tally, this.tenant.since);
  }
}
