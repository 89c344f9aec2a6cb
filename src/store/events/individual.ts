import { z } from 'zod';
import { defineEvent, id, num, since, text, version } from './define';

// Individual level: one agent's reflections, lessons and competence.

export const reflection = defineEvent('reflection', 'An agent\'s reflection on a task: whether it parsed, and the lesson and meta-lesson it gave.', {
  taskId: id, agentId: id, parsed: z.boolean(), lesson: text.nullable(), meta: text.nullable(),
});
export const lessonAdded = defineEvent('lesson.added', 'A lesson or insight stored in an agent\'s memory (forwardedFrom: the agent it was addressed to).', {
  taskId: id, agentId: id, entryId: id, niche: text.nullable(), level: text, source: text, text, poolVersion: version,
  forwardedFrom: id.optional(),
});
export const competenceUpdated = defineEvent('competence.updated', 'An agent\'s competence and exposure in a niche after observing a reward.', {
  taskId: id, agentId: id, niche: text, reward: num, competence: num, exposure: since(num), poolVersion: version,
});
export const competenceDropped = defineEvent('competence.dropped', 'An observation not applied because its agent had retired.', {
  taskId: id, agentId: id, niche: text, reward: num, reason: z.literal('retired'), poolVersion: version,
});

export const INDIVIDUAL_EVENTS = [reflection, lessonAdded, competenceUpdated, competenceDropped] as const;
