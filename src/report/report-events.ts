import { z } from 'zod';

// The events the report draws, as zod schemas. Loose on purpose: extra fields are fine (the engine
// only ever adds fields), and optional population fields are absent in runs made before them.

const id = z.string();
const num = z.number();

/** Schemas of the event types the report reads, by type. Other types are ignored. */
export const REPORT_EVENTS = {
  'run.started': z.looseObject({ scenario: z.string(), variant: z.string(), seed: num, tasks: num }),
  'agent.spawned': z.looseObject({
    agentId: id,
    origin: z.string(),
    persona: z.string().optional(),
    parents: z.array(id).optional(),
    reason: z.string().optional(),
    window: num.optional(),
  }),
  'meta.report': z.looseObject({ segment: num, procedureVersion: num, fromTask: num, toTask: num, accuracy: num.nullable().optional() }),
  'meta.edit': z.looseObject({
    segment: num, accepted: z.boolean(), procedureVersion: num,
    changes: z.array(z.looseObject({ path: z.string(), from: z.unknown(), to: z.unknown() })).optional(),
    reason: z.string().optional(), rationale: z.string().optional(), revertedTo: num.optional(),
  }),
  'task.started': z.looseObject({ taskId: id, niche: z.string(), block: num.optional() }),
  'structure.chosen': z.looseObject({ taskId: id, niche: z.string(), structure: z.string() }),
  'task.graded': z.looseObject({ taskId: id, niche: z.string(), reward: num, correct: z.boolean().optional() }),
  'task.done': z.looseObject({ taskId: id, tokens: z.record(z.string(), z.looseObject({ calls: num, promptTokens: num, completionTokens: num })).optional() }),
  'evolve.applied': z.looseObject({ taskId: id, tokens: z.record(z.string(), z.looseObject({ calls: num, promptTokens: num, completionTokens: num })).optional() }),
  'lifecycle.usage': z.looseObject({ window: num, tokens: z.record(z.string(), z.looseObject({ calls: num, promptTokens: num, completionTokens: num })) }),
  'competence.updated': z.looseObject({ agentId: id, niche: z.string(), competence: num, exposure: num.optional() }),
  'codream.session': z.looseObject({
    taskId: id,
    niche: z.string(),
    trigger: z.string(),
    members: z.array(id),
    insights: num.optional(),
    promptTokens: num.optional(),
    completionTokens: num.optional(),
  }),
  'codream.insight': z.looseObject({ insightId: id, level: z.string(), niche: z.string().nullable().optional() }),
  'insight.routed': z.looseObject({
    insightId: id,
    from: z.array(id),
    to: id,
    niche: z.string().nullable().optional(),
    level: z.string(),
    pool: z.string().optional(),
  }),
  'lifecycle.window': z.looseObject({
    window: num,
    tasksSeen: num.optional(),
    roster: z.array(z.looseObject({ agentId: id, competence: z.record(z.string(), num), exposure: z.record(z.string(), num).optional() })),
    specialists: z.record(z.string(), id.nullable()).optional(),
  }),
  'lifecycle.decision': z.looseObject({ window: num, operator: z.string(), agents: z.array(id), reason: z.string() }),
  'agent.retired': z.looseObject({ agentId: id, reason: z.string(), successor: id.nullable().optional(), window: num.optional() }),
  'agent.persona': z.looseObject({ agentId: id, persona: z.string(), reason: z.string(), window: num.optional() }),
  'attempt': z.looseObject({ promptTokens: num.optional(), completionTokens: num.optional() }),
} as const;

/** A report event type. */
export type ReportEventType = keyof typeof REPORT_EVENTS;

/** The parsed shape of one report event type. */
export type ReportEvent<T extends ReportEventType> = z.infer<(typeof REPORT_EVENTS)[T]>;

/** Whether the report reads events of this type. */
export function isReportEventType(type: string): type is ReportEventType {
  return Object.hasOwn(REPORT_EVENTS, type);
}
