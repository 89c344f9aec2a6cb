import { hash32 } from '../../core/hash';
import { createRng } from '../../core/rng';
import { CompletionAbortedError, type Completion, type CompletionRequest, type LanguageModel } from '../../llm/model';
import { ApiScheduler } from '../server/api-scheduler';
import { BatchScheduler } from '../server/batch-scheduler';
import { prefixBlocks } from '../server/chat-handler';
import type { LatencyScheduler, SeqHandle } from '../server/latency-scheduler';
import { getProfile, type LatencyProfile } from '../../llm/latency-profiles';
import { RateLimiter } from '../server/rate-limiter';
import { maxTokensPerSecond } from './server-capacity';
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
}

type State = 'preparing' | 'queued' | 'running' | 'done';

interface Call {
  readonly req: CompletionRequest;
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

/**
 * A LanguageModel that answers with `inner` (the simulated model, or a journal in front of it)
 * at once and delivers each answer when serve-sim's latency model (a profile's BatchScheduler or
 * ApiScheduler) says its last token exists, in virtual time on a VirtualClock (README, "Virtual
 * time"). `timing` is in virtual milliseconds. Requests submitted at one instant are admitted in
 * the order of (seed key, prompt hash), whatever order the run made them in. An aborted request is
 * cancelled in the scheduler and rejects with CompletionAbortedError(tokens not generated, tokens
 * generated); one already answered resolves. With an api profile the rate limiter delays an
 * admission until it fits, as a client honouring retry-after would, instead of answering 429.
 */
export class VirtualServerModel implements LanguageModel {
  readonly name: string;
  readonly clock: VirtualClock;
  readonly profile: LatencyProfile;
  private readonly scheduler: LatencyScheduler;
  private readonly limiter: RateLimiter | undefined;
  private queued: Call[] = [];
  private lastEnd = 0;
  private generatedTokens = 0;
  private requests = 0;
  private aborted = 0;
  private rateLimited = 0;
  private promptSum = 0;
  private contextWeighted = 0;

  constructor(private readonly inner: LanguageModel, opts: VirtualServerOptions) {
    this.name = inner.name;
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

  /** Keep virtual time still until `work` settles (see VirtualClock.hold). */
  hold<T>(work: Promise<T>): Promise<T> {
    return this.clock.hold(work);
  }

  complete(req: CompletionRequest): Promise<Completion> {
    this.clock.touch();
    if (req.signal?.aborted) return Promise.reject(new CompletionAbortedError(null, 0));
    return new Promise<Completion>((resolve, reject) => {
      const call: Call = { req, submittedAt: this.clock.now(), resolve, reject, state: 'preparing', generated: 0 };
      if (req.signal) {
        const onAbort = () => this.abort(call);
        req.signal.addEventListener('abort', onAbort, { once: true });
        call.detach = () => req.signal!.removeEventListener('abort', onAbort);
      }
      // The answer is computed now; holding it keeps the clock still if `inner` is not instant.
      this.clock.hold(this.inner.complete(req)).then((reply) => {
        if (call.state !== 'preparing') return;
        call.reply = reply;
        call.promptText = req.messages.map((m) => `${m.role}\n${m.content}`).join('\n');
        call.key = `${req.seedKey ?? ''}\u0000${hash32(call.promptText).toString(36).padStart(7, '0')}\u0000${req.taskId ?? ''}\u0000${req.agentId ?? ''}\u0000${req.stage}`;
        call.state = 'queued';
        this.queued.push(call);
      }, (err: unknown) => {
        if (call.state !== 'preparing') return;
        this.settle(call, 'done');
        reject(err);
      });
    });
  }

  embed(texts: readonly string[]): Promise<Float32Array[]> {
    return this.clock.hold(this.inner.embed(texts));
  }

  stats(): VirtualServerStats {
    const virtualSeconds = this.lastEnd / 1000;
    const tokensPerSecond = virtualSeconds > 0 ? this.generatedTokens / virtualSeconds : 0;
    const max = this.requests > 0 && this.generatedTokens > 0
      ? maxTokensPerSecond(this.profile, {
        meanPromptTokens: this.promptSum / this.requests,
        meanCompletionTokens: this.generatedTokens / this.requests,
        meanDecodeContext: this.contextWeighted / this.generatedTokens,
      })
      : null;
    const c = this.clock.stats();
    return {
      profile: this.profile.name, virtualSeconds, generatedTokens: this.generatedTokens, tokensPerSecond,
      maxTokensPerSecond: max, utilization: max ? tokensPerSecond / max : null,
      requests: this.requests, aborted: this.aborted, rateLimited: this.rateLimited, events: c.events, settles: c.settles,
    };
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
        this.rateLimited++;
        this.clock.timer.after(d.retryAfterMs, () => this.admit(call));
        return;
      }
    }
    call.state = 'running';
    this.requests++;
    this.promptSum += promptTokens;
    const outputTokens = Math.max(1, completionTokens);
    call.handle = this.scheduler.submit({ promptTokens, outputTokens, prefixBlocks: prefixBlocks(call.promptText!) }, {
      onFirstToken: () => { call.firstAt = this.clock.now(); },
      onTokens: (g) => { call.generated = g; },
      onDone: () => {
        if (call.state !== 'running') return;
        const now = this.clock.now();
        this.account(call, outputTokens, now);
        this.settle(call, 'done');
        const timing = { ttftMs: (call.firstAt ?? now) - call.submittedAt, totalMs: now - call.submittedAt };
        call.resolve({ ...call.reply!, timing });
      },
    });
  }

  private abort(call: Call): void {
    if (call.state === 'done') return;
    const prior = call.state;
    this.settle(call, 'done');
    this.aborted++;
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

  private account(call: Call, generated: number, now: number): void {
    this.generatedTokens += generated;
    this.contextWeighted += generated * (call.reply!.usage.promptTokens + generated / 2);
    this.lastEnd = Math.max(this.lastEnd, now);
  }

  private settle(call: Call, state: State): void {
    call.state = state;
    call.detach?.();
    this.clock.touch();
  }
}
