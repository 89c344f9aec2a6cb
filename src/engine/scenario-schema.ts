import { z } from 'zod';
import { DEFAULT_SIM_PARAMS } from '../llm/sim/sim-params';

const int = () => z.number().int();

const simOverrides = z.strictObject(
  Object.fromEntries(
    Object.entries(DEFAULT_SIM_PARAMS).map(([k, v]) => [
      k,
      typeof v === 'number'
        ? z.number().optional()
        : z.strictObject(Object.fromEntries(Object.keys(v).map((m) => [m, z.number().positive().optional()]))).optional(),
    ]),
  ),
);

/** One niche in a stream: a built-in id, or a dataset file in a standard format. */
export const nicheEntrySchema = z.strictObject({
  id: z.string().min(1),
  weight: z.number().positive().default(1),
  /** Difficulty levels to draw from (uniformly); the niche's own levels when omitted. */
  difficulty: z.array(int().min(1).max(5)).min(1).optional(),
  /** A dataset niche: rows loaded from a file the user has (path relative to the scenario file). */
  dataset: z.strictObject({ format: z.enum(['gsm8k']), path: z.string().min(1) }).optional(),
});

/**
 * The scenario file format (`scenarios/*.json`), version 1. Unknown fields are errors, so a typo
 * never silently falls back to a default.
 */
export const scenarioSchema = z.strictObject({
  schemaVersion: z.literal(1).default(1),
  name: z.string().min(1),
  description: z.string().optional(),
  seed: int().default(1),
  /** Preset to run (see `evochamber run --help` for the list). */
  variant: z.string().default('individual'),
  stream: z.strictObject({
    /** `blocks`: niches one after another; `interleaved`: round-robin; `shuffled`: drawn by weight. */
    order: z.enum(['blocks', 'interleaved', 'shuffled']).default('shuffled'),
    tasks: int().positive(),
    /** Tasks per block for `blocks` (default: tasks / niches). */
    blockSize: int().positive().optional(),
    niches: z.array(nicheEntrySchema).min(1),
  }),
  agents: z.strictObject({
    count: int().min(1).max(256).default(4),
    /** Persona template file in `agents/` (without `.json`). */
    template: z.string().default('generalist'),
  }).default({ count: 4, template: 'generalist' }),
  memory: z.strictObject({
    /** EWMA learning rate η of competence. */
    eta: z.number().gt(0).max(1).default(0.1),
    /** Initial competence c0 on an unseen niche. */
    c0: z.number().min(0).max(1).default(0.5),
    /** Lessons retrieved from the task's niche bucket. */
    k: int().min(0).default(3),
    /** Meta-insights retrieved from the meta pool. */
    kMeta: int().min(0).default(2),
  }).default({ eta: 0.1, c0: 0.5, k: 3, kMeta: 2 }),
  structures: z.strictObject({
    /** Samples per task for self-consistency. */
    samples: int().min(1).max(64).default(5),
  }).default({ samples: 5 }),
  engine: z.strictObject({
    /** Tasks in flight at once; 1 is the paper's sequential loop. */
    inFlight: int().min(1).max(1024).default(1),
  }).default({ inFlight: 1 }),
  model: z.strictObject({
    backend: z.enum(['sim']).default('sim'),
  }).default({ backend: 'sim' }),
  /** Overrides of the simulated model's parameters (src/llm/sim/sim-params.ts). */
  sim: simOverrides.default({}),
  grading: z.strictObject({
    /** Long-lived sandbox workers for code grading. */
    codeWorkers: int().min(1).max(32).default(2),
    /** Per-candidate wall-clock limit (ms). */
    codeTimeoutMs: int().min(100).default(3000),
  }).default({ codeWorkers: 2, codeTimeoutMs: 3000 }),
});

/** A validated scenario. */
export type Scenario = z.infer<typeof scenarioSchema>;
/** A scenario as written in a file (defaults not yet applied). */
export type ScenarioInput = z.input<typeof scenarioSchema>;
/** One validated stream niche entry. */
export type NicheEntry = z.infer<typeof nicheEntrySchema>;
