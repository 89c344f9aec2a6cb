import { EvolvePipeline, type EvolvePipelineOptions } from './evolve-pipeline';
import type { EvolveOutcome } from './evolve-stage';
import type { EvolveTiming } from './loop-settings';
import type { TaskOutcome } from './task-run';

/** What the scheduler does with an outcome, and how many run at once. */
export interface EvolveSchedulerDeps<J> {
  readonly timing: EvolveTiming;
  /** Judge an outcome (the staleness policy); its result is what `apply` applies. */
  readonly judge: (evo: EvolveOutcome) => Promise<J>;
  /** Apply a judged outcome to the pool. */
  readonly apply: (evo: EvolveOutcome, judged: J) => void;
  /** Told of each outcome just before it is judged (or applied, when judged early): the adaptive controller's version gap. */
  readonly observe?: (evo: EvolveOutcome) => void;
  /** Evolve jobs at once. */
  readonly limit: () => number;
  readonly onStarted?: () => void;
  readonly onProduced?: () => void;
  /** The evolve stage itself (default: reflection, the leader's note, CoDream); tests give a fake. */
  readonly run?: EvolvePipelineOptions<J>['run'];
}

/**
 * When evolve outcomes are applied, in one place for every timing mode:
 * - `lag`: the outcome of task i is applied just before the commit of task i + window (never earlier);
 * - `when-ready`: as soon as it is ready, judged as soon as it is computed, in parallel with the others;
 * - sequential (`settleAtSync`: one task in flight, or a zero-time model): everything queued is
 *   applied before tasks start and before a lifecycle window.
 * Each `before…` method returns what the loop must wait for, or undefined when nothing.
 */
export class EvolveScheduler<J> {
  private readonly pipeline: EvolvePipeline<J>;

  constructor(private readonly d: EvolveSchedulerDeps<J>) {
    // Applied as soon as ready, an outcome is judged as soon as it is computed, so a reflective
    // policy's calls never hold up the outcomes behind it; applied at a point the commits define, it
    // is judged there, against everything applied before it.
    const early = d.timing === 'when-ready';
    this.pipeline = new EvolvePipeline<J>({
      ...(early ? { prepare: d.judge } : {}),
      apply: async (evo, judged) => {
        d.observe?.(evo);
        d.apply(evo, judged ?? await d.judge(evo));
      },
      limit: d.limit, held: d.timing === 'lag',
      ...(d.onStarted ? { onStarted: d.onStarted } : {}), ...(d.onProduced ? { onProduced: d.onProduced } : {}),
      ...(d.run ? { run: d.run } : {}),
    });
  }

  /** Rethrow an application failure, if one happened. */
  check(): void {
    this.pipeline.check();
  }

  /** Before tasks start (and before a lifecycle window): sequential runs apply everything queued. */
  beforeStarts(settleAtSync: boolean): Promise<void> | undefined {
    return settleAtSync ? this.pipeline.settle() : undefined;
  }

  /** Before the solve commit of task `index` (0-based) with a solve window of `window`: `lag` applies task index − window's outcome. */
  beforeCommit(index: number, window: number): Promise<void> | undefined {
    return this.d.timing === 'lag' ? this.pipeline.applyThrough(index - window + 1) : undefined;
  }

  /** Queue the evolve stage of a task just committed at pool version `version`. */
  enqueue(outcome: TaskOutcome, version: number): void {
    this.pipeline.enqueue(outcome, version);
  }

  /** Start queued jobs while slots are free (after the limit grew). */
  pump(): void {
    this.pipeline.pump();
  }

  /** Apply everything queued (a segment's end, the end of the run). */
  settle(): Promise<void> {
    return this.pipeline.settle();
  }
}
