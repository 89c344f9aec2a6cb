import type { Rng } from '../../core/rng';
import type { KvCacheState, LatencyScheduler, PriorityLoad, SchedulerLoad, SeqEvents, SeqHandle, SeqRequest } from './latency-scheduler';
import type { BatchProfile } from '../../llm/latency-profiles';
import type { SimTimer } from './sim-timer';

/** Options of BatchScheduler. */
export interface BatchSchedulerOptions {
  /**
   * Skip ahead over runs of pure decode steps in one timer event (virtual time). A jump covers
   * steps in which nothing can change the batch: no prefill, no admission possible (the waiting
   * head stays blocked while no sequence leaves), no KV-cache preemption, and no other timer event
   * before the jump's last step ends; it ends at the step where the first sequence finishes. The
   * steps' jitter is drawn in the same order as step-by-step, so every time is identical; a request
   * arriving or cancelled mid-jump cuts the jump back to the step in flight at that moment.
   * `onTokens` is then called once per jump instead of once per step. Default off (serve-sim
   * streams token chunks step by step).
   */
  readonly fastForward?: boolean;
  /** Most steps one jump covers (bounds the jitter draws taken ahead); default 4096. */
  readonly maxJumpSteps?: number;
}

/** A run of decode steps handled as one timer event (see BatchSchedulerOptions.fastForward). */
interface Jump {
  /** End of each step of the jump, first to last. */
  readonly ends: number[];
  /** Jitter draws of steps 2…k, returned to the draw buffer when the jump is cut back. */
  readonly draws: number[];
}

interface Seq {
  readonly req: SeqRequest;
  /** The request's priority (lower first; 0 when it gives none). */
  readonly priority: number;
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
 * steps back to back while there is work; each step admits waiting requests (by `priority`, lower
 * first, as vLLM's `--scheduling-policy priority`; FIFO within one priority; while sequences and KV
 * blocks allow), prefills up to `maxPrefillTokensPerStep` prompt tokens in
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
  private readonly fastForward: boolean;
  private readonly maxJumpSteps: number;
  /** The jump in flight (fast-forward), if the running step is one. */
  private jump: Jump | undefined;
  /** Jitter draws taken ahead by a jump that was cut back; used before drawing new ones. */
  private drawBuffer: number[] = [];
  /** Timer events this scheduler scheduled for steps (a jump counts once); for benchmarks. */
  stepEvents = 0;
  /** Sequences preempted so far because the KV cache ran out. */
  private preemptions = 0;

  constructor(private readonly p: BatchProfile, private readonly timer: SimTimer, private readonly rng: Rng, opts: BatchSchedulerOptions = {}) {
    this.totalBlocks = Math.floor(p.kvCacheTokens / p.blockTokens);
    this.fastForward = opts.fastForward ?? false;
    this.maxJumpSteps = Math.max(2, opts.maxJumpSteps ?? 4096);
  }

  submit(req: SeqRequest, ev: SeqEvents): SeqHandle {
    const seq: Seq = { req, ev, priority: req.priority ?? 0, state: 'arriving', context: 0, prefillLeft: 0, chunk: 0, generated: 0, blocks: 0 };
    this.arriving.add(seq);
    seq.cancelArrival = this.timer.after(this.p.overheadMs, () => {
      this.arriving.delete(seq);
      if (seq.state !== 'arriving' || this.closed) return;
      // The step in flight at this moment admits it when it ends, as step by step.
      this.cutJump(this.timer.now());
      seq.state = 'waiting';
      this.enqueue(seq, 'back');
      this.kick();
    });
    return { cancel: () => this.drop(seq) };
  }

  load(): SchedulerLoad {
    const by = new Map<number, { running: number; waiting: number }>();
    const at = (p: number) => { let e = by.get(p); if (!e) by.set(p, e = { running: 0, waiting: 0 }); return e; };
    for (const s of this.running) at(s.priority).running++;
    for (const s of [...this.waiting, ...this.arriving]) at(s.priority).waiting++;
    const byPriority: PriorityLoad[] = [...by].sort((a, b) => a[0] - b[0]).map(([priority, e]) => ({ priority, ...e }));
    return { running: this.running.length, waiting: this.waiting.length + this.arriving.size, ...(byPriority.length > 0 ? { byPriority } : {}) };
  }

  /**
   * Put a sequence in the waiting queue, which is ordered by priority (lower first): a new arrival
   * after every sequence of its priority or a lower value (first come, first served within one
   * priority), a preempted one before every sequence of its priority or a higher value (it resumes
   * first within its priority). With one priority for all this is today's FIFO with preempted
   * sequences at the front.
   */
  private enqueue(seq: Seq, where: 'back' | 'front'): void {
    const p = seq.priority;
    let i: number;
    if (where === 'back') {
      i = this.waiting.length;
      while (i > 0 && this.waiting[i - 1]!.priority > p) i--;
    } else {
      i = 0;
      while (i < this.waiting.length && this.waiting[i]!.priority < p) i++;
    }
    this.waiting.splice(i, 0, seq);
  }

  kvCache(): KvCacheState {
    return { usage: this.totalBlocks > 0 ? this.usedBlocks / this.totalBlocks : 0, preemptions: this.preemptions };
  }

  close(): void {
    this.closed = true;
    this.cancelStep?.();
    this.cancelStep = undefined;
    this.jump = undefined;
    for (const s of [...this.arriving, ...this.waiting, ...this.running]) { s.cancelArrival?.(); s.state = 'gone'; }
    this.arriving.clear();
    this.waiting.length = 0;
    this.running.length = 0;
    this.usedBlocks = 0;
  }

  /**
   * A running sequence's cancel first brings a jump up to date (its `onTokens` then reports the
   * tokens generated until now), then drops it.
   */
  private drop(seq: Seq): void {
    if (seq.state === 'gone') return;
    if (seq.state === 'waiting' || seq.state === 'running') this.cutJump(this.timer.now());
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
      // The lowest priority (highest value) goes first, as vLLM's priority policy does; the longest among them.
      const victim = this.running.reduce((a, b) => (b.priority > a.priority || (b.priority === a.priority && b.context > a.context) ? b : a));
      this.preemptions++;
      this.release(victim);
      victim.state = 'waiting';
      this.enqueue(victim, 'front');
    }
    for (const s of this.running) {
      if (s.prefillLeft === 0 && this.blocksFor(s.context + 1) > s.blocks) { s.blocks++; this.usedBlocks++; }
    }
  }

  /** One step's duration: the profile's cost of the batch, times the jitter draw `u` ∈ [0, 1). */
  private stepMs(running: number, context: number, prefill: number, u: number): number {
    const base = this.p.stepFixedMs
      + this.p.perSequenceMs * running
      + (this.p.perKiloContextMs * context) / 1000
      + this.p.perPrefillTokenMs * prefill;
    return base * (1 + this.p.jitter * (2 * u - 1));
  }

  /** The next jitter draw: one a cut-back jump returned, else a fresh one. */
  private draw(): number {
    return this.drawBuffer.length > 0 ? this.drawBuffer.shift()! : this.rng.next();
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
    const ms = this.stepMs(this.running.length, context, prefill, this.draw());
    this.stepEvents++;
    if (this.fastForward && prefill === 0 && this.running.length > 0) {
      const jump = this.planJump(start + ms, context);
      if (jump) {
        const end = jump.ends.at(-1)!;
        this.jump = jump;
        this.cancelStep = this.timer.at(end, () => this.endJump(jump, end));
        return;
      }
    }
    this.cancelStep = this.timer.at(start + ms, () => this.endStep(start + ms));
  }

  /**
   * Plan a jump from a pure decode step ending at `end1` whose batch holds `context` tokens:
   * undefined when it would cover fewer than two steps. Steps are added while no sequence has
   * finished before, the KV cache needs no preemption, and each ends before the timer's next event.
   */
  private planJump(end1: number, context: number): Jump | undefined {
    const n = this.running.length;
    let left = Infinity;
    for (const s of this.running) left = Math.min(left, s.req.outputTokens - s.generated);
    let k = Math.min(left, this.maxJumpSteps);
    // Other events (arrivals) would cut the jump back anyway; stopping before them saves the draws.
    const next = this.timer.peek?.() ?? Infinity;
    if (k < 2 || end1 >= next) return undefined;
    if (n > 1) k = Math.min(k, this.kvFitSteps(k));
    if (k < 2) return undefined;
    const ends = [end1];
    const draws: number[] = [];
    for (let i = 2; i <= k; i++) {
      const u = this.draw();
      const end = ends[i - 2]! + this.stepMs(n, context + n * (i - 1), 0, u);
      if (end >= next) { this.drawBuffer.unshift(u); break; }
      draws.push(u);
      ends.push(end);
    }
    if (ends.length < 2) return undefined;
    return { ends, draws };
  }

  /** Most steps (≤ `k`) whose starts allocate KV blocks without preempting anyone. */
  private kvFitSteps(k: number): number {
    // Blocks in use at the start of step i: each decoding sequence holds max(blocks, blocksFor(context + i)).
    const usedAt = (i: number) => {
      let used = this.usedBlocks;
      for (const s of this.running) used += Math.max(0, this.blocksFor(s.context + i) - s.blocks);
      return used;
    };
    if (usedAt(k) <= this.totalBlocks) return k;
    let lo = 1;
    let hi = k;
    while (hi - lo > 1) {
      const mid = (lo + hi) >> 1;
      if (usedAt(mid) <= this.totalBlocks) lo = mid; else hi = mid;
    }
    return lo;
  }

  /** Apply `j` completed decode steps of a jump to every running sequence (KV blocks as step j + 1 starts). */
  private advance(j: number): void {
    if (j <= 0) return;
    for (const s of this.running) {
      s.generated += j;
      s.context += j;
      const blocks = Math.max(s.blocks, this.blocksFor(s.context + 1));
      this.usedBlocks += blocks - s.blocks;
      s.blocks = blocks;
    }
  }

  private endJump(jump: Jump, end: number): void {
    this.jump = undefined;
    this.advance(jump.ends.length - 1);
    this.endStep(end);
  }

  /**
   * Cut the jump in flight back to the step running at time `t`: steps that ended before `t` are
   * applied (and reported through `onTokens`), the step in flight keeps its end, and the jitter
   * draws of the steps not begun go back to the draw buffer. No-op without a jump.
   */
  private cutJump(t: number): void {
    const jump = this.jump;
    if (!jump) return;
    this.jump = undefined;
    let j = 0;
    while (j < jump.ends.length - 1 && jump.ends[j]! < t) j++;
    this.advance(j);
    if (j > 0) for (const s of [...this.running]) if (s.state === 'running') s.ev.onTokens?.(s.generated);
    this.drawBuffer = [...jump.draws.slice(j), ...this.drawBuffer];
    this.cancelStep?.();
    const end = jump.ends[j]!;
    this.stepEvents++;
    this.cancelStep = this.timer.at(end, () => this.endStep(end));
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
