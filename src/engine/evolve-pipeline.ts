import type { EvolveOutcome } from './evolve-stage';
import { runEvolve } from './evolve-stage';
import type { TaskOutcome } from './task-run-machine';

/** What the evolve pipeline needs from the engine. */
export interface EvolvePipelineOptions {
  /** Apply one evolve outcome to the pool (the staleness policy judges it first). Called in task order, one at a time. */
  readonly apply: (evo: EvolveOutcome) => Promise<void>;
  /** How many evolve jobs may run at once (read each time a job could start; the adaptive controller changes it). */
  readonly limit: () => number;
  /** Called as each evolve job finishes computing (before it is applied), for production-rate measurement. */
  readonly onProduced?: () => void;
  /** Computes one task's evolve outcome (default: reflection, the leader's note, CoDream). */
  readonly run?: (out: TaskOutcome, version: number) => Promise<EvolveOutcome>;
}

interface Job {
  readonly out: TaskOutcome;
  readonly version: number;
  readonly done: (evo: EvolveOutcome) => void;
}

/**
 * The evolve stage off the critical path. Each graded task's evolve job (reflection, the leader's
 * note, CoDream) is queued when the task's solve outcome commits, starts when an evolve slot is
 * free (in task order), and is applied as soon as it is ready *and* every earlier task's outcome
 * has been applied: application order is task order, which is version order, never arrival order.
 */
export class EvolvePipeline {
  private readonly waiting: Job[] = [];
  private running = 0;
  private queued = 0;
  private applied = 0;
  /** The chain of applications: each waits for the one before it and for its own job. */
  private tail: Promise<void> = Promise.resolve();
  private failure: { error: unknown } | null = null;

  constructor(private readonly o: EvolvePipelineOptions) {}

  /** Queue the evolve job of a task whose solve outcome was just committed at pool version `version`. */
  enqueue(out: TaskOutcome, version: number): void {
    let done!: (evo: EvolveOutcome) => void;
    const ready = new Promise<EvolveOutcome>((resolve) => { done = resolve; });
    this.waiting.push({ out, version, done });
    this.queued++;
    this.tail = this.tail.then(async () => {
      const evo = await ready;
      if (this.failure) return;
      try {
        await this.o.apply(evo);
        this.applied++;
      } catch (error) {
        this.failure = { error };
      }
    });
    this.pump();
  }

  /** Start queued jobs while slots are free (call again after the limit grows). */
  pump(): void {
    while (this.waiting.length > 0 && this.running < Math.max(1, this.o.limit())) {
      const job = this.waiting.shift()!;
      this.running++;
      const run = this.o.run ?? runEvolve;
      void run(job.out, job.version)
        .catch((e: unknown): EvolveOutcome => ({
          out: job.out, version: job.version, reflections: [], note: null, dream: null,
          error: { stage: 'other', message: e instanceof Error ? e.message : String(e) },
        }))
        .then((evo) => {
          this.running--;
          this.o.onProduced?.();
          job.done(evo);
          this.pump();
        });
    }
  }

  /** Evolve jobs computing now. */
  get inFlight(): number {
    return this.running;
  }

  /** Jobs queued or computed but not yet applied. */
  get backlog(): number {
    return this.queued - this.applied;
  }

  /** Wait until every queued outcome has been applied; rethrows an application failure (e.g. the supervisor rejected an update). */
  async settle(): Promise<void> {
    let tail: Promise<void>;
    do {
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
