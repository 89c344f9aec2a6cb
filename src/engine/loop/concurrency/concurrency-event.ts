import type { EventOf, LoggedEvent } from '../../../store/events';
import type { ConcurrencyChange, ConcurrencyReason, ConcurrencyStage } from './adaptive';

/**
 * `engine.concurrency`: the adaptive controller changed a stage's limit. Written in the commit group
 * of the task whose commit triggered the decision, so its place in `events.jsonl` is deterministic
 * whenever the run clock is (virtual time).
 */
export type ConcurrencyEvent = EventOf<'engine.concurrency'>;

/** The event that records one change the controller made. */
export function concurrencyEvent(c: ConcurrencyChange): ConcurrencyEvent {
  return {
    type: 'engine.concurrency', stage: c.stage, from: c.from, to: c.to, reason: c.reason, detail: c.detail,
    at: c.at, committed: c.committed, rates: { ...c.rates }, throughput: { ...c.throughput }, tokensPerSecond: c.tokensPerSecond, median: c.median, gap: c.gap, backlog: c.backlog,
  };
}

/** The changes a run's log recorded (its `engine.concurrency` events, in log order), for `ReplayedConcurrency`. */
export function recordedChanges(events: Iterable<LoggedEvent>): ConcurrencyChange[] {
  const out: ConcurrencyChange[] = [];
  for (const e of events) if (e.type === 'engine.concurrency') out.push(e);
  return out;
}
