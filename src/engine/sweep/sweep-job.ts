import { z } from 'zod';

/** Version of the job data and sweep record; a worker refuses jobs of another version (2: a job's overrides are one `patch`). */
export const SWEEP_SCHEMA_VERSION = 2;

/**
 * One job: one (variant, seed) run of a sweep. The scenario travels inside the job (workers need
 * no copy of the file); the worker validates it again with the scenario schema before running.
 */
export const sweepJobSchema = z.strictObject({
  schemaVersion: z.literal(SWEEP_SCHEMA_VERSION),
  sweepId: z.string().regex(/^[0-9a-z]+$/),
  variant: z.string().min(1),
  seed: z.number().int(),
  /** What the run changes in the scenario beside its variant and seed, keyed by path (a ScenarioPatch; the scenario schema checks it on the worker). */
  patch: z.record(z.string(), z.unknown()),
  /** The scenario object as loaded (validated by `parseScenario` on both sides). */
  scenario: z.unknown(),
  /** The scenario file on the machine that enqueued it: error messages only. */
  scenarioFile: z.string(),
  /** Where relative dataset paths started on that machine (datasets must be at the same path on workers). */
  scenarioDir: z.string(),
});

/** The data of one sweep job. */
export type SweepJob = z.infer<typeof sweepJobSchema>;

/**
 * What a job returns: the run's summary, and where its run directory is (host and absolute path).
 * The summary is checked only for the fields an ablation aggregates; the rest travels as is.
 */
export const sweepJobResultSchema = z.strictObject({
  summary: z.looseObject({
    variant: z.string(),
    seed: z.number(),
    accuracy: z.number(),
    perNiche: z.record(z.string(), z.number()),
    stableSpecialists: z.number(),
    failures: z.number(),
    runDir: z.string(),
  }),
  host: z.string(),
  runDir: z.string(),
  /** `host:pid` of the worker that finished the job. */
  worker: z.string(),
  /** True when the run continued a run directory left by an earlier attempt instead of starting over. */
  resumed: z.boolean(),
});

/** A job's return value. */
export type SweepJobResult = z.infer<typeof sweepJobResultSchema>;

/** A sweep as stored in Redis when it is enqueued, so `--attach <id>` can wait for it and write its output. */
export const sweepRecordSchema = z.strictObject({
  schemaVersion: z.literal(SWEEP_SCHEMA_VERSION),
  id: z.string(),
  scenario: z.string(),
  variants: z.array(z.string()).min(1),
  seedList: z.array(z.number().int()).min(1),
  /** ablation.json's directory on the machine that enqueued the sweep. */
  outDir: z.string(),
  createdAt: z.string(),
});

/** A stored sweep. */
export type SweepRecord = z.infer<typeof sweepRecordSchema>;
