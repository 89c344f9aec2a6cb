import { z } from 'zod';
import { defineEvent, int, num, text } from './define';

// Run level: the run's start, end and the process events around it.

export const runStarted = defineEvent('run.started', 'The run began: scenario, variant, seed and planned tasks.', {
  scenario: text, variant: text, seed: int, tasks: int,
});
export const runFinished = defineEvent('run.finished', 'Every task was committed: the run\'s accuracy and task count.', {
  accuracy: num.nullable(), tasks: int,
});
export const runInterrupted = defineEvent('run.interrupted', 'The run stopped cleanly (signal, outage, abandoned) and can be resumed.', {
  reason: text, committed: int.optional(), total: int.optional(),
});
export const runBudget = defineEvent('run.budget', 'The run stopped because its budget was spent; resumable with a larger one.', {
  limit: z.enum(['tokens', 'completionTokens', 'usd']), budget: num, spent: num, projected: num, committed: int, total: int,
});
export const runFailed = defineEvent('run.failed', 'The run failed with an error.', { error: text });
export const runResumed = defineEvent('run.resumed', 'A resumed run went past the end of its log: later events are new.', { at: text });
export const datasetRowsSkipped = defineEvent('dataset.rows-skipped', 'A niche\'s dataset had rows that could not be read as tasks.', {
  niche: text, skipped: int,
});

export const RUN_EVENTS = [runStarted, runFinished, runInterrupted, runBudget, runFailed, runResumed, datasetRowsSkipped] as const;
