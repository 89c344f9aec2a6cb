import { z } from 'zod';
import { defineEvent, id, int, list, num, since, text, tokensByStage, version } from './define';

// Task level: one task's life from start to commit.

export const taskStarted = defineEvent('task.started', 'A task run started (stream order) with the pool version it reads.', {
  taskId: id, niche: text, difficulty: num, block: since(int), poolVersion: version,
});
export const attempt = defineEvent('attempt', 'One model answer inside a task\'s structure (clipped to 2000 characters).', {
  taskId: id, agentId: id, role: text, step: text, index: int, extracted: text.nullable(), text,
  promptTokens: since(int), completionTokens: since(int), error: text.optional(), cancelled: z.literal(true).optional(),
});
export const taskGraded = defineEvent('task.graded', 'The team\'s answer was graded.', {
  taskId: id, niche: text, reward: num, correct: since(z.boolean()), extracted: text.nullable(), detail: text, disagreement: z.boolean(),
  /** Code: the program's verdict varied between two runs (graders/nondeterminism.ts); absent otherwise. */
  flaky: since(z.literal(true)),
});
export const taskFailed = defineEvent('task.failed', 'The task could not be graded: the stage it failed at and why.', {
  taskId: id, niche: text, stage: text, error: text,
});
export const stageFallback = defineEvent('stage.fallback', 'A stage used its default instead of the model\'s reply.', {
  taskId: id, stage: z.enum(['leadlearn', 'reflect', 'codream']), agentId: id.nullable(), cause: text,
});
export const experienceRetrieved = defineEvent('experience.retrieved', 'The lessons and meta-lessons an agent was shown for a task.', {
  taskId: id, agentId: id, lessons: list(id), meta: list(id),
});
export const taskDone = defineEvent('task.done', 'The task\'s solve commit: status, reward, versions, and its solve stage\'s calls and tokens.', {
  taskId: id, status: z.enum(['graded', 'failed']), reward: num.nullable(), poolVersion: version, startedAt: version,
  tokens: tokensByStage.optional(),
  earlyStop: z.strictObject({ roundsSkipped: int, tokensSaved: num }).optional(),
});

export const TASK_EVENTS = [taskStarted, attempt, taskGraded, taskFailed, stageFallback, experienceRetrieved, taskDone] as const;
