import { AdaptiveConcurrency, type ConcurrencyChange, type ConcurrencyStage } from './adaptive';
import type { AutoConfig } from '../../scenario/auto-config';

/** What the engine calls on a concurrency controller: `AdaptiveConcurrency`, or a resumed run's `ReplayedConcurrency`. */
export type ConcurrencyController = Pick<AdaptiveConcurrency, 'limit' | 'enqueued' | 'started' | 'produced' | 'gapObserved' | 'work' | 'tick'>;

/**
 * A resumed `auto` run: while the run re-executes the part its log holds, the limits follow the
 * `engine.concurrency` events the log recorded (each returned by `tick` once as many tasks have
 * committed as when it was decided, so the re-executed events match the log byte for byte); from
 * the first tick after the replay ends, a fresh `AdaptiveConcurrency` decides, starting from the
 * limits the log left. Over HTTP the original decisions followed wall time, which a resumed run
 * cannot reproduce; this makes it not need to.
 */
export class ReplayedConcurrency implements ConcurrencyController {
  private readonly recorded: ConcurrencyChange[];
  private next = 0;
  private committed = 0;
  private readonly limits: Record<ConcurrencyStage, number>;
  private live: AdaptiveConcurrency | null = null;
  private readonly running: Record<ConcurrencyStage, number> = { solve: 0, evolve: 0 };
  private readonly waiting: Record<ConcurrencyStage, number> = { solve: 0, evolve: 0 };

  /**
   * @param recorded the log's `engine.concurrency` events (or changes), in log order.
   * @param replaying true while the run still re-executes its logged part (`EventLog.isReplaying`).
   */
  constructor(
    recorded: readonly ConcurrencyChange[],
    private readonly config: AutoConfig,
    private readonly tau: number,
    private readonly replaying: () => boolean,
  ) {
    this.recorded = [...recorded];
    this.limits = { solve: config.initial, evolve: config.evolveInitial };
  }

  limit(stage: ConcurrencyStage): number {
    return this.live ? this.live.limit(stage) : this.limits[stage];
  }

  enqueued(stage: ConcurrencyStage, now: number): void {
    if (this.live) return this.live.enqueued(stage, now);
    this.waiting[stage]++;
  }

  started(stage: ConcurrencyStage, now: number): void {
    if (this.live) return this.live.started(stage, now);
    if (this.waiting[stage] > 0) this.waiting[stage]--;
    this.running[stage]++;
  }

  produced(stage: ConcurrencyStage, now: number): void {
    if (stage === 'solve') this.committed++;
    if (this.live) return this.live.produced(stage, now);
    this.running[stage] = Math.max(0, this.running[stage] - 1);
  }

  gapObserved(gap: number): void {
    this.live?.gapObserved(gap);
  }

  work(tokens: number, now: number): void {
    this.live?.work(tokens, now);
  }

  tick(now: number): ConcurrencyChange[] {
    if (this.live) return this.live.tick(now);
    const due: ConcurrencyChange[] = [];
    while (this.next < this.recorded.length && this.recorded[this.next]!.committed <= this.committed) {
      const c = this.recorded[this.next++]!;
      this.limits[c.stage] = c.to;
      due.push(c);
    }
    if (due.length === 0 && !this.replaying()) {
      this.live = new AdaptiveConcurrency(
        { ...this.config, initial: this.limits.solve, evolveInitial: this.limits.evolve }, this.tau, now,
        { running: this.running, waiting: this.waiting, committed: this.committed },
      );
    }
    return due;
  }
}
