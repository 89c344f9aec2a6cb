import type { EvolveOutcome } from './evolve-stage';
import { runEvolve } from './evolve-stage';
import type { TaskOutcome } from './task-run';

/** What the evolve pipeline needs from the engine. */
export interface EvolvePipelineOptions<P = undefined> {
  /** Apply one evolve outcome to the pool, with what `prepare` made of it. Called in task order, one at a time. */
  readonly apply: (evo: EvolveOutcome, prepared: P | undefined) => Promise<void>;
  /**
   * Work done on an outcome as soon as it is computed, still off the critical path and in parallel
   * with other outcomes (e.g. the staleness judgement, when outcomes are applied as soon as ready).
   */
  readonly prepare?: (evo: EvolveOutcome) => Promise<P>;
  /** How many evolve jobs may run at once (read each time a job could start; the adaptive controller changes it). */
  readonly limit: () => number;
  /** Called as each evolve job starts computing, for production-rate measurement. */
  readonly onStarted?: () => void;
  /** Called as each evolve job finishes computing (before it is applied), for production-rate measurement. */
  readonly onProduced?: () => void;
  /**
   * Held: an outcome is applied only once the engine releases it (`release`), at a point it chose
   * deterministically, even if it is ready earlier. Otherwise each is applied as soon as it is ready.
   */
  readonly held?: boolean;
  /** Computes one task's evolve outcome (default: reflection, the leader's note, CoDream). */
  readonly run?: (out: TaskOutcome, version: number) => Promise<EvolveOutcome>;
}

interface Job<P> {
  readonly out: TaskOutcome;
  readonly version: number;
  readonly done: (r: { evo: EvolveOutcome; prepared: P | undefined }) => void;
}

/**
 * The evolve stage off the critical path. Each graded task's evolve job (reflection, the leader's
 * note, CoDream) is queued when the task's solve outcome commits, starts when an evolve slot is
 * free (in task order), is prepared as soon as it is computed (`prepare`), and is applied once it is
 * ready, every earlier task's outcome has been applied and — in a held pipeline — the engine has
 * released it: application order is task order, which is version order, never arrival order.
 */
export class EvolvePipeline<P = undefined> {
  private readonly waiting: Job<P>[] = [];
  private running = 0;
  private queued = 0;
  /** The chain of applications: each waits for the one before it and for its own job. */
  private tail: Promise<void> = Promise.resolve();
  private failure: { error: unknown } | null = null;
  /** Outcomes with an index below this may be applied (Infinity: apply each as soon as it is ready). */
  private released: number;
  private readonly gates: Array<{ index: number; open: () => void }> = [];
  /**
   * The application chain as it stood after each queued outcome not yet applied: awaiting
   * `ends.get(i)` waits for outcome i's application. Each removes itself once applied (the chain
   * applies in order, so a missing entry below `queued` is applied), so an endless stream keeps
   * one per outcome in flight, not one per task ever.
   */
  private readonly ends = new Map<number, Promise<void>>();

  constructor(private readonly o: EvolvePipelineOptions<P>) {
    this.released = o.held ? 0 : Infinity;
  }

  /** Allow the outcomes of the first `count` queued tasks to be applied (held pipelines only). */
  release(count: number): void {
    if (count <= this.released) return;
    this.released = count;
    for (let i = this.gates.length - 1; i >= 0; i--) {
      if (this.gates[i]!.index < count) { this.gates[i]!.open(); this.gates.splice(i, 1); }
    }
  }

  private gate(index: number): Promise<void> {
    if (index < this.released) return Promise.resolve();
    return new Promise((open) => { this.gates.push({ index, open }); });
  }

  /** Queue the evolve job of a task whose solve outcome was just committed at pool version `version`. */
  enqueue(out: TaskOutcome, version: number): void {
    let done!: (r: { evo: EvolveOutcome; prepared: P | undefined }) => void;
    const ready = new Promise<{ evo: EvolveOutcome; prepared: P | undefined }>((resolve) => { done = resolve; });
    this.waiting.push({ out, version, done });
    const index = this.queued++;
    this.tail = this.tail.then(async () => {
      const { evo, prepared } = await ready;
      await this.gate(index);
      if (this.failure) return;
      try {
        await this.o.apply(evo, prepared);
      } catch (error) {
        this.failure = { error };
      }
    });
    const end = this.tail;
    this.ends.set(index, end);
    void end.then(() => { this.ends.delete(index); });
    this.pump();
  }

  /** Start queued jobs while slots are free (call again after the limit grows). */
  pump(): void {
    while (this.waiting.length > 0 && this.running < Math.max(1, this.o.limit())) {
      const job = this.waiting.shift()!;
      this.running++;
      this.o.onStarted?.();
      const run = this.o.run ?? runEvolve;
      void run(job.out, job.version)
        .catch((e: unknown): EvolveOutcome => ({
          out: job.out, version: job.version, reflections: [], note: null, dream: null,
          error: { stage: 'other', message: e instanceof Error ? e.message : String(e) },
        }))
        .then(async (evo) => {
          this.running--;
          this.o.onProduced?.();
          this.pump();
          let prepared: P | undefined;
          try {
            prepared = this.o.prepare ? await this.o.prepare(evo) : undefined;
          } catch (error) {
            this.failure ??= { error };
          }
          job.done({ evo, prepared });
        });
    }
  }

  /** Outcomes queued and not yet applied: all the pipeline holds of them, however long the stream. */
  get pending(): number {
    return this.ends.size;
  }

  /** Release and wait until the outcomes of the first `count` queued tasks have been applied. */
  async applyThrough(count: number): Promise<void> {
    this.release(count);
    const last = Math.min(count, this.queued) - 1;
    if (last >= 0) await this.ends.get(last);
    this.check();
  }

  /**
   * Wait until every queued outcome has been applied; rethrows an application failure (e.g. the
   * supervisor rejected an update). Releases only what is queued: a held pipeline stays held for the
   * outcomes queued later (a meta segment's boundary settles mid-run, and the next segment must keep
   * applying in the engine's deterministic order, not as each outcome happens to be ready).
   */
  async settle(): Promise<void> {
    let tail: Promise<void>;
    do {
      this.release(this.queued);
      tail = this.tail;
      await tail;
    } while (tail !== this.tail);
    this.check();
  }

  /** Rethrow an application failure, if one happened. */
  check(): void {
    if (this.failure) throw this.failure.error;
  }
}
