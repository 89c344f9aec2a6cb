import { z } from 'zod';

/**
 * How much of a run's state is kept in memory however long the stream (`bounds` in a scenario;
 * docs/running.md, "Bounded state"). The history beyond these lives in the event log. Each default
 * is above what any shipped scenario reaches at its own length, so they change no shipped summary.
 */
export const stateBoundsSchema = z.strictObject({
  /**
   * Reward-history entries each agent holds (at least; its count and reward sum are kept for the
   * whole run). Prune reads the last `population.lifecycle.prune.window` of them: that window must fit.
   */
  historyWindow: z.number().int().min(1).default(1024),
  /**
   * LeadLearn records kept and searched per niche: the latest ones. A query scores the records of
   * every niche's window (the niche's embedding dominates the key); the per-niche statistics count
   * every record ever made.
   */
  leadlearnWindow: z.number().int().min(1).default(1024),
});

/** A scenario's state bounds (`bounds`). */
export type StateBounds = z.infer<typeof stateBoundsSchema>;

/** Every bound at its default. */
export const DEFAULT_STATE_BOUNDS: StateBounds = stateBoundsSchema.parse({});
