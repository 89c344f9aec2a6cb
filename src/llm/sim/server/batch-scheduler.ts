import type { Rng } from '../../../core/rng';
import type { LatencyScheduler, SchedulerLoad, SeqEvents, SeqHandle, SeqRequest } from './latency-scheduler';
import type { BatchProfile } from './profiles';
import type { SimTimer } from './sim-timer';

interface Seq {
  readonly req: SeqRequest;
  readonly ev: SeqEvents;
  state: 'arriving' | 'waiting' | 'running' | 'gone';
  /** Tokens held in the KV cache. */
  context: number;
  /** Prompt (or, after preemption, prompt + generated) tokens still to prefill before decoding. */
  prefillLeft: number;
  /** Prefill tokens scheduled in the current step. */
  chunk: number;
  generated: number;
  blocks: number;
  cancelArrival?: () => void;
}

/**
 * Continuous batching in the style of vLLM (docs/latency-profiles.md, `qwen3-8b-h100-vllm`): the engine runs
 * steps back to back while there is work; each step admits waiting requests (FIFO, while
 * sequences and KV blocks allow), prefills up to `maxPrefillTokensPerStep` prompt tokens in
 * chunks, and emits one token for every decoding sequence. Step time grows with the batch, the
 * KV cache read and the prefill chunk. When the KV cache runs out the longest sequence is
 * preempted and recomputed later. A prefix cache (LRU over block hashes) makes repeated prompt
 * prefixes free to prefill. Time comes from the injected timer, so it runs in virtual time too.
 */
export class BatchScheduler implements LatencyScheduler {
  private readonly waiting: Seq[] = [];
  private readonly running: Seq[] = [];
  private readonly arriving = new Set<Seq>();
  private readonly totalBlocks: number;
  private usedBlocks = 0;
  /** Prefix cache: block hash → present; Map order is LRU order. */
  private readonly cache = new Map<number, true>();
  private cancelStep: (() => void) | undefined;
  /** Model time the last step ended; back-to-back steps start there, not at the (late) wake-up time. */
  private lastEnd = -Infinity;
  private closed = false;

  constructor(private readonly p: BatchProfile, private readonly timer: SimTimer, private readonly rng: Rng) {
    this.totalBlocks = Math.floor(p.kvCacheTokens / p.blockTokens);
  }

  submit(req: SeqRequest, ev: SeqEvents): SeqHandle {
    const seq: Seq = { req, ev, state: 'arriving', context: 0, prefillLeft: 0, chunk: 0, generated: 0, blocks: 0 };
    this.arriving.add(seq);
    seq.cancelArrival = this.timer.after(this.p.overheadMs, () => {
      this.arriving.delete(seq);
      if (seq.state !== 'arriving' || this.closed) return;
      seq.state = 'waiting';
      this.waiting.push(seq);
      this.kick();
    });
    return { cancel: () => this.drop(seq) };
  }

  load(): SchedulerLoad {
    return { running: this.running.length, waiting: this.waiting.length + this.arriving.size };
  }

  close(): void {
    this.closed = true;
    this.cancelStep?.();
    this.cancelStep = undefined;
    for (const s of [...this.arriving, ...this.waiting, ...this.running]) { s.cancelArrival?.(); s.state = 'gone'; }
    this.arriving.clear();
    this.waiting.length = 0;
    this.running.length = 0;
    this.usedBlocks = 0;
  }

  private drop(seq: Seq): void {
    if (seq.state === 'gone') return;
    if (seq.state === 'arriving') { seq.cancelArrival?.(); this.arriving.delete(seq); }
    if (seq.state === 'waiting') this.waiting.splice(this.waiting.indexOf(seq), 1);
    if (seq.state === 'running') this.release(seq);
    seq.state = 'gone';
  }

  private release(seq: Seq): void {
    const i = this.running.indexOf(seq);
    if (i >= 0) this.running.splice(i, 1);
    this.usedBlocks -= seq.blocks;
    seq.blocks = 0;
  }

  private blocksFor(tokens: number): number {
    return Math.ceil(tokens / this.p.blockTokens);
  }

  /** Start a step if there is work and none is running: at `start` when chaining steps, else now. */
  private kick(start?: number): void {
    if (this.cancelStep || this.closed || (this.waiting.length === 0 && this.running.length === 0)) return;
    this.startStep(start ?? Math.max(this.lastEnd, this.timer.now()));
  }

  /** Tokens of the prompt's leading blocks already in the prefix cache (touching them). */
  private cachedPrefix(seq: Seq): number {
    let n = 0;
    for (const h of seq.req.prefixBlocks ?? []) {
      if (!this.cache.has(h)) break;
      this.cache.delete(h);
      this.cache.set(h, true);
      n++;
    }
    // The last prompt token is always computed, as in vLLM.
    return Math.min(n * this.p.blockTokens, Math.max(0, seq.req.promptTokens - 1));
  }

  private remember(seq: Seq): void {
    for (const h of seq.req.prefixBlocks ?? []) {
      this.cache.delete(h);
      this.cache.set(h, true);
    }
    while (this.cache.size > this.totalBlocks) this.cache.delete(this.cache.keys().next().value as number);
  }

  private admit(): void {
    while (this.waiting.length > 0 && this.running.length < this.p.maxRunning) {
      const seq = this.waiting[0]!;
      // A preempted sequence recomputes its prompt and what it had generated.
      const target = seq.req.promptTokens + seq.generated;
      const need = this.blocksFor(target + 1);
      if (this.running.length > 0 && this.usedBlocks + need > this.totalBlocks) break;
      this.waiting.shift();
      seq.state = 'running';
      seq.blocks = need;
      this.usedBlocks += need;
      seq.context = target;
      seq.prefillLeft = target - (seq.generated === 0 ? this.cachedPrefix(seq) : 0);
      this.running.push(seq);
    }
  }

  /** Make room for every decoding sequence's next token, preempting the longest when the cache is full. */
  private growBlocks(): void {
    for (;;) {
      let need = 0;
      for (const s of this.running) if (s.prefillLeft === 0 && this.blocksFor(s.context + 1) > s.blocks) need++;
      if (this.usedBlocks + need <= this.totalBlocks || this.running.length <= 1) break;
      const victim = this.running.reduce((a, b) => (b.context > a.context ? b : a));
      this.release(victim);
      victim.state = 'waiting';
      this.waiting.unshift(victim);
    }
    for (const s of this.running) {
      if (s.prefillLeft === 0 && this.blocksFor(s.context + 1) > s.blocks) { s.blocks++; this.usedBlocks++; }
    }
  }

  private startStep(start: number): void {
    this.admit();
    this.growBlocks();
    let budget = this.p.maxPrefillTokensPerStep;
    let prefill = 0;
    let context = 0;
    for (const s of this.running) {
      s.chunk = Math.min(s.prefillLeft, budget);
      budget -= s.chunk;
      prefill += s.chunk;
      context += s.context;
    }
    const base = this.p.stepFixedMs
      + this.p.perSequenceMs * this.running.length
      + (this.p.perKiloContextMs * context) / 1000
      + this.p.perPrefillTokenMs * prefill;
    const ms = base * (1 + this.p.jitter * (2 * this.rng.next() - 1));
    this.cancelStep = this.timer.at(start + ms, () => this.endStep(start + ms));
  }

  private endStep(end: number): void {
    this.cancelStep = undefined;
    this.lastEnd = end;
    const finished: Seq[] = [];
    for (const s of [...this.running]) {
      let emitted = false;
      if (s.prefillLeft > 0) {
        s.prefillLeft -= s.chunk;
        s.chunk = 0;
        if (s.prefillLeft > 0) continue;
        if (s.generated === 0) { this.remember(s); s.generated = 1; s.context++; s.ev.onFirstToken?.(); emitted = true; }
        // A recomputed (preempted) sequence resumes decoding from the next step.
      } else {
        s.generated++;
        s.context++;
        emitted = true;
      }
      if (s.state !== 'running') continue;
      if (emitted) s.ev.onTokens?.(s.generated);
      if (s.state === 'running' && s.generated >= s.req.outputTokens) finished.push(s);
    }
    for (const s of finished) {
      if (s.state !== 'running') continue;
      this.release(s);
      s.state = 'gone';
      s.ev.onDone();
    }
    this.kick(end);
  }
}
