import { z } from 'zod';
import { defineEvent, int, list, num, since, text, tokensByStage } from './define';

// Meta level: the harness that edits the run's own procedure between segments.

const plan = z.strictObject({ tasks: int, tokens: num.optional(), stopWhenFlatFor: int.optional() });
export const metaReport = defineEvent('meta.report', 'A segment ended: its tasks, procedure version, and a digest of its report.', {
  segment: int, procedureVersion: int, fromTask: int, toTask: int, hash: text, accuracy: since(num.nullable()), tasks: int, sessions: int,
});
export const metaEdit = defineEvent('meta.edit', 'The meta-editor\'s reply at a boundary: accepted (its changes) or rejected (why), the next plan, tokens.', {
  segment: int, accepted: z.boolean(), procedureVersion: int,
  changes: list(z.strictObject({ path: text, from: z.unknown(), to: z.unknown() })).optional(),
  revertedTo: int.optional(), reason: text.optional(), rationale: text.optional(), plan, tokens: tokensByStage,
});

export const META_EVENTS = [metaReport, metaEdit] as const;
