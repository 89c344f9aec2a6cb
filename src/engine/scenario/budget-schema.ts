import { z } from 'zod';

/**
 * A run's (or a sweep's) budget: stop starting work once the cost of what was committed, plus the
 * estimated cost of what is in flight and of the next task, would pass any of these limits.
 */
export const budgetSchema = z.strictObject({
  /** Prompt plus completion tokens. */
  tokens: z.number().int().positive().optional(),
  /** Completion tokens only (what a GPU server spends its time on). */
  completionTokens: z.number().int().positive().optional(),
  /** US dollars, at the scenario's `prices`. */
  usd: z.number().positive().optional(),
}).refine((b) => b.tokens !== undefined || b.completionTokens !== undefined || b.usd !== undefined, { error: 'give at least one of tokens, completionTokens, usd' });

/** A validated budget. */
export type Budget = z.infer<typeof budgetSchema>;
