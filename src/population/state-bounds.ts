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
  /**
   * Entries each niche bucket of an agent's archive holds (`memory.capacity`, when smaller, wins):
   * a full bucket forgets its oldest entry, and the archive's store evicts what it forgot once it
   * holds twice as many (src/individual/archive.ts).
   */
  archiveBucket: z.number().int().min(1).default(256),
  /** Entries each agent's meta pool holds, forgotten and evicted the same way. */
  metaPool: z.number().int().min(1).default(256),
});

/** A scenario's state bounds (`bounds`). */
export type StateBounds = z.infer<typeof stateBoundsSchema>;

/** Every bound at its default. */
export const DEFAULT_STATE_BOUNDS: StateBounds = stateBoundsSchema.parse({});
