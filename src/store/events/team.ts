import { z } from 'zod';
import { defineEvent, id, int, list, num, text, version } from './define';

// Team level: who works on a task, in which structure, and what the team learned about that.

export const teamAssembled = defineEvent('team.assembled', 'The team chosen for a task: members and their roles, and the assembler\'s scores.', {
  taskId: id, members: list(z.strictObject({ agentId: id, role: text })), scores: z.record(z.string(), z.unknown()).nullable(),
});
export const structureChosen = defineEvent('structure.chosen', 'The structure a task runs in, who chose it and why, and the entries it recalled.', {
  taskId: id, niche: text, structure: text, source: text, why: text,
  retrieved: list(z.strictObject({ id, niche: text, structure: text, outcome: num })),
});
export const structureSetAside = defineEvent('structure.set-aside', 'A structure was set aside in a niche until a later task.', {
  taskId: id, niche: text, structure: text, cause: text, untilTask: int,
});
export const leadlearnEntry = defineEvent('leadlearn.entry', 'LeadLearn recorded how a structure did with a team profile in a niche.', {
  taskId: id, niche: text, structure: text, outcome: num, teamProfile: z.unknown(), note: text.nullable(), poolVersion: version,
});
export const leadlearnNote = defineEvent('leadlearn.note', 'The leader\'s note was attached to a LeadLearn entry.', {
  taskId: id, entryId: id, note: text, poolVersion: version,
});
export const synergyUpdated = defineEvent('synergy.updated', 'The pair synergy of two agents in a niche after a task.', {
  taskId: id, a: id, b: id, niche: text, value: num, poolVersion: version,
});

export const TEAM_EVENTS = [teamAssembled, structureChosen, structureSetAside, leadlearnEntry, leadlearnNote, synergyUpdated] as const;
