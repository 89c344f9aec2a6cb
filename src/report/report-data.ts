import { z } from 'zod';

/** Version of `data.json`; bump when its shape changes (fields are only ever added within a version). */
export const REPORT_DATA_SCHEMA_VERSION = 1;

const count = z.number().int().nonnegative();
const unit = z.number().min(0).max(1);
const agentId = z.string();

const competenceCell = z.object({ agentId, niche: z.string(), competence: z.number(), exposure: z.number() });

const competenceWindow = z.object({
  /** Window number, from 1. */
  window: count,
  /** Tasks finished when the window closed. */
  tasksSeen: count,
  cells: z.array(competenceCell),
});

const specialist = z.object({
  window: count,
  tasksSeen: count,
  niche: z.string(),
  /** The agent anchoring the niche (highest competence among agents exposed to it); null when none is. */
  agentId: agentId.nullable(),
  competence: z.number().nullable(),
  /** The specialist the lifecycle itself recorded for the niche in this window (it requires a lead margin); null when it named none or the run logs no lifecycle windows. */
  recognized: agentId.nullable(),
});

const agentEntry = z.object({
  agentId,
  origin: z.string(),
  parents: z.array(agentId),
  persona: z.string().nullable(),
  reason: z.string().nullable(),
  window: z.number().nullable(),
  /** Tasks finished when the agent was spawned / retired. */
  spawnedAt: count,
  retiredAt: count.nullable(),
  retiredReason: z.string().nullable(),
  successor: agentId.nullable(),
});

const stamped = { window: z.number().nullable(), tasksSeen: count };

/** The schema of `data.json` for one run: everything the report's charts and tables draw. */
export const reportDataSchema = z.object({
  schemaVersion: z.literal(REPORT_DATA_SCHEMA_VERSION),
  kind: z.literal('run'),
  generatedAt: z.string(),
  run: z.object({
    id: z.string(),
    dir: z.string(),
    status: z.string(),
    createdAt: z.string(),
    scenario: z.string(),
    variant: z.string(),
    seed: z.number(),
    backend: z.string().nullable(),
    plannedTasks: count,
    tasksDone: count,
    /** Whether the log ends with `run.finished`. */
    finished: z.boolean(),
    /** The scenario as run (from run.json). */
    config: z.record(z.string(), z.unknown()),
  }),
  /** How to run it again, and the run's patch (what it changed in its scenario, keyed by path) the commands carry. */
  reproduce: z.object({ command: z.string(), scenarioFile: z.string(), fromOriginal: z.string(), patch: z.record(z.string(), z.unknown()) }),
  log: z.object({
    lines: count,
    events: count,
    skippedCount: count,
    skipped: z.array(z.object({ line: count, reason: z.string(), last: z.boolean() })),
    /** Events of a type the report reads whose fields did not match; by type. */
    malformed: z.record(z.string(), count),
  }),
  /** Every agent that ever lived, in spawn order; the colour order of every chart. */
  agents: z.array(agentEntry),
  niches: z.array(z.string()),
  competence: z.object({
    /** 'lifecycle' when the run logged lifecycle windows; otherwise equal task windows made up by the report. */
    windowSource: z.enum(['lifecycle', 'synthetic']),
    windows: z.array(competenceWindow),
    final: z.array(competenceCell),
  }),
  specialists: z.array(specialist),
  lineage: z.object({
    decisions: z.array(z.object({ ...stamped, operator: z.string(), agents: z.array(agentId), reason: z.string() })),
    retirements: z.array(z.object({ ...stamped, agentId, reason: z.string(), successor: agentId.nullable() })),
    personas: z.array(z.object({ ...stamped, agentId, persona: z.string(), reason: z.string() })),
  }),
  codream: z.object({
    sessions: z.array(z.object({ niche: z.string(), trigger: z.string(), count })),
    insightsByLevel: z.record(z.string(), count),
    /** Routed insights, one row per (from, to, niche, level); `niche` null for the meta pool. */
    flows: z.array(z.object({ from: agentId, to: agentId, niche: z.string().nullable(), level: z.string(), count })),
    /** Routed insights (one per insight.routed, however many authors), by niche and level. */
    routedByNiche: z.array(z.object({ niche: z.string().nullable(), level: z.string(), count })),
    routed: count,
  }),
  /** Meta-editing (empty for runs without it): accuracy per segment, the edits, each edited knob's values over the run. */
  meta: z.object({
    segments: z.array(z.object({ segment: count, fromTask: count, toTask: count, accuracy: z.number().nullable(), procedureVersion: count })),
    edits: z.array(z.object({
      segment: count, atTask: count, accepted: z.boolean(), procedureVersion: count,
      changes: z.array(z.object({ path: z.string(), from: z.unknown(), to: z.unknown() })),
      reason: z.string().nullable(), rationale: z.string().nullable(), revertedTo: count.nullable(),
    })),
    knobs: z.array(z.object({ path: z.string(), points: z.array(z.object({ task: count, value: z.string(), numeric: z.number().nullable(), version: count })) })),
  }).default({ segments: [], edits: [], knobs: [] }),
  structures: z.object({
    binSize: count,
    bins: z.array(z.object({ niche: z.string(), bin: count, start: count, end: count, structure: z.string(), count })),
    totals: z.record(z.string(), z.record(z.string(), count)),
  }),
  accuracy: z.object({
    overall: unit.nullable(),
    exactRate: unit.nullable(),
    perNiche: z.array(z.object({ niche: z.string(), tasks: count, mean: unit, correct: count })),
    rollingWindow: count,
    /** Rolling mean reward of a niche's last `rollingWindow` tasks, at the global task number (thinned). */
    series: z.array(z.object({ niche: z.string(), task: count, rolling: unit })),
    /** Where a new block of the stream starts (global task number). */
    blocks: z.array(z.object({ task: count, block: z.number() })),
  }),
  cost: z.object({
    /** 'summary' from run.json; 'events' (partial: solve and codream only) when the run has no summary. */
    source: z.enum(['summary', 'events']),
    /** `truncated`: replies cut off by the token limit with no answer (absent when none). */
    stages: z.array(z.object({ stage: z.string(), calls: count, promptTokens: count, completionTokens: count, truncated: count.optional() })),
    wallSeconds: z.number().nullable(),
    tasksPerSecond: z.number().nullable(),
  }),
});

/** `data.json` of a run report. */
export type ReportData = z.infer<typeof reportDataSchema>;
/** One agent of the report's roster. */
export type ReportAgent = ReportData['agents'][number];
/** One competence cell (agent × niche). */
export type CompetenceCell = ReportData['competence']['final'][number];
/** One competence window. */
export type CompetenceWindow = ReportData['competence']['windows'][number];
/** Who anchors a niche in a window. */
export type SpecialistEntry = ReportData['specialists'][number];

/** The stages the cost section always lists, in order; other stages follow. */
export const COST_STAGES = ['solve', 'reflect', 'leadlearn', 'codream', 'lifecycle'] as const;
