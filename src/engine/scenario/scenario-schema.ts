import { z } from 'zod';
import { openaiModelSchema } from '../../llm/openai/openai-config';
import { PROFILES } from '../../llm/latency-profiles';
import { EMBEDDER_NAMES } from '../../llm/text-embedder';
import { nicheEntrySchema } from '../../tasks/niche-entry';
import { lifecycleConfigSchema } from '../../population/lifecycle/lifecycle-config';
import { stateBoundsSchema } from '../../population/state-bounds';
import { DREAM_OPTIONAL_PHASES, DREAM_TRIGGER_MODES } from '../../population/codream/codream';
import { STALENESS_POLICY_NAMES } from '../../population/staleness';
import { DEFAULT_STALENESS_TAU } from '../../population/staleness/policy';
import { autoConfigSchema } from './auto-config';
import { budgetSchema } from './budget-schema';
import { metaConfigSchema } from './meta-config';
import { sweepSettingsSchema } from './sweep-settings';
import { pricesSchema } from '../../llm/pricing';
import { extraBodySchema, samplingSchema, stagesSchema } from '../../llm/sampling-fields';

const int = () => z.number().int();

/** `engine.staleness`: the policy and the version gap τ it tolerates unexamined (DEFAULT_STALENESS_TAU says why 8). */
const stalenessSchema = z.strictObject({
  policy: z.string().refine((n) => STALENESS_POLICY_NAMES.includes(n), {
    error: (issue) => `unknown staleness policy ${JSON.stringify(issue.input)} (policies: ${STALENESS_POLICY_NAMES.join(', ')})`,
  }).default('full'),
  tau: int().min(0).default(DEFAULT_STALENESS_TAU),
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
  variant: z.string().default('evochamber'),
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
    /** Most entries an agent's niche bucket holds; a full bucket forgets its oldest (absent: unbounded). */
    capacity: int().min(1).optional(),
    /** Added to each reflection's instructions (a meta-editor's edit; none by default). */
    reflectionNote: z.string().max(300).optional(),
    /**
     * The embedder of lessons, insights and queries (docs/backends.md, "Embeddings: hashed, use-lite, or an endpoint"): `hashed` (the
     * local hashed n-grams) or `use-lite` (Universal Sentence Encoder Lite, in-process, offline).
     * Absent: the backend's own (`model.embeddings` over HTTP when set, else hashed).
     */
    embedder: z.enum(EMBEDDER_NAMES).optional(),
  }).default({ eta: 0.1, c0: 0.5, k: 3, kMeta: 2 }),
  structures: z.strictObject({
    /** Samples per task for self-consistency: 3 by default, the full system's team size (the roles assembler's), so SC pays a team's solve calls. */
    samples: int().min(1).max(64).default(3),
    /** Revision rounds after the independent round in debate. */
    debateRounds: int().min(1).max(8).default(2),
    /**
     * Speculative completion: voting and self-consistency cancel the outstanding calls once the
     * majority is decided. Over real servers which calls finish first is timing: switch it off for
     * runs that must repeat call for call.
     */
    speculative: z.boolean().default(true),
  }).default({ samples: 3, debateRounds: 2, speculative: true }),
  team: z.strictObject({
    /** Assembler weights (docs/how-it-works.md): competence, synergy, overlap, novelty. */
    weights: z.strictObject({
      wc: z.number().default(1),
      ws: z.number().default(0.5),
      wo: z.number().default(0.5),
      wx: z.number().default(1),
    }).default({ wc: 1, ws: 0.5, wo: 0.5, wx: 1 }),
    /** EWMA rate of pair synergy S[i][j][n]. */
    synergyEta: z.number().gt(0).max(1).default(0.2),
    /** Synergy of a pair that never served together on the niche. */
    synergy0: z.number().min(0).max(1).default(0.5),
    /** Leadership-bank entries the leader retrieves when choosing a structure. */
    leadlearnK: int().min(0).max(64).default(12),
    /** The structures a leader may choose from (default: every choosable one); checked against the run's structures. */
    offered: z.array(z.string().min(1)).min(1).optional(),
    /**
     * Failures that repeat (team/structure-cooldown.ts): a structure whose tasks on a niche fail
     * `after` times in a row at the same stage for the same refused request (HTTP 400, 404, 413,
     * 422) is set aside there for `tasks` tasks (0: never).
     */
    cooldown: z.strictObject({
      after: int().min(1).max(100).default(2),
      tasks: int().min(0).max(1_000_000).default(20),
    }).default({ after: 2, tasks: 20 }),
  }).default({ weights: { wc: 1, ws: 0.5, wo: 0.5, wx: 1 }, synergyEta: 0.2, synergy0: 0.5, leadlearnK: 12, cooldown: { after: 2, tasks: 20 } }),
  population: z.strictObject({
    codream: z.strictObject({
      /** CoDream fires when the team's mean member reward is below this (or members disagree). */
      threshold: z.number().min(0).max(1).default(0.5),
      /** Who receives CoDream's insights; default: the preset's (below-median agents, or everyone for symmetric-codream). */
      routing: z.enum(['asymmetric', 'symmetric']).optional(),
      /** What fires it: a failed team or a disagreement (default), or a failed team only (the paper's reading). */
      trigger: z.enum(DREAM_TRIGGER_MODES).default('failure-or-disagreement'),
      /** The optional phases that run (default: both): `reflect` (private diagnoses before contrast), `debate` (a vote; without it every proposal is kept). */
      phases: z.array(z.enum(DREAM_OPTIONAL_PHASES)).refine((p) => new Set(p).size === p.length, { message: 'names a phase twice' }).optional(),
    }).prefault({}),
    /** Lifecycle schedule, roster bounds and operator triggers (src/population/lifecycle/lifecycle-config.ts). */
    lifecycle: lifecycleConfigSchema.prefault({}),
  }).prefault({}),
  engine: z.strictObject({
    /**
     * Tasks in flight at once; 1 is the paper's sequential loop. `"auto"`: the adaptive controller
     * (src/engine/loop/concurrency/adaptive.ts) sizes the solve window and the evolve workers as it runs.
     */
    inFlight: z.union([int().min(1).max(1024), z.literal('auto')], { error: 'expected a whole number 1–1024, or "auto"' }).default(1),
    /** The adaptive controller's settings, read when `inFlight` is `"auto"` (absent: every default). */
    auto: autoConfigSchema.optional(),
    /** What becomes of lessons and insights applied after the pool moved on (src/population/staleness/). */
    staleness: stalenessSchema.prefault({}),
    /**
     * When evolve outcomes are applied (docs/runs-on-disk.md, "Solve and evolve stages"): `lag` just before the
     * solve commit of the task `inFlight` places later, never earlier (a resumed run re-executes
     * the same order on any backend); `when-ready` as soon as each is ready (fresher; deterministic
     * in virtual time, timing-dependent on real servers, where a resume can then diverge).
     * Ignored with one task in flight (each is applied before the next task starts) and by the
     * zero-time in-process simulator (each is ready at once).
     */
    evolveTiming: z.enum(['lag', 'when-ready']).default('lag'),
  }).prefault({}),
  /** The backend: the in-process simulator, or OpenAI-compatible endpoints (src/llm/openai/openai-config.ts). */
  model: z.discriminatedUnion('backend', [
    z.strictObject({
      backend: z.literal('sim'),
      /**
       * Run the simulated model behind this serve-sim latency profile in virtual time
       * (docs/backends.md, "Virtual time"): the summary then reports virtualSeconds, tokensPerSecond and
       * utilization.
       */
      latency: z.string().refine((name) => Object.hasOwn(PROFILES, name), {
        message: `unknown latency profile (profiles: ${Object.keys(PROFILES).join(', ')})`,
      }).optional(),
      /** Sampling fields on every request (the simulator reads temperature and seed: docs/simulated-model.md, "Temperature"). */
      sampling: samplingSchema.optional(),
      /** Extra request fields; carried (and journaled) as over HTTP, read by no part of the in-process simulator. */
      extraBody: extraBodySchema.optional(),
      /** Overrides by stage (solve, critic, reflect, codream, leader, lifecycle, staleness, meta). */
      stages: stagesSchema.optional(),
    }),
    openaiModelSchema,
  ]).default({ backend: 'sim' }),
  /**
   * Overrides of the simulated model's parameters (src/sim/sim-params.ts). The simulator's plug-in
   * checks them when the scenario is parsed (`ModelPlugin.validate`): the engine does not know them.
   */
  sim: z.record(z.string(), z.unknown()).default({}),
  /**
   * Meta-editing between segments (docs/meta.md): every `every` tasks the run stops at a quiescent
   * point, the harness reports the segment, and (with the `meta` preset) a meta-editor edits the
   * procedure's knobs within their bounds.
   */
  meta: metaConfigSchema.optional(),
  /**
   * Stop starting tasks once committed work plus the estimated cost of the work in flight would
   * pass a limit (docs/running.md, "Budgets"): the run stops as Ctrl-C stops it, with status `budget`.
   */
  budget: budgetSchema.optional(),
  /**
   * A local `ablate`'s budget for its whole sweep (docs/sweeps.md, "Budgets"): a run that has not
   * started does not start once it would be passed. `ablate --budget-*` replaces it; a run ignores it.
   */
  sweepBudget: budgetSchema.optional(),
  /** How a local `ablate` runs its runs (sweep-settings.ts; `ablate --parallel`, `--jobs`, `--priorities`, `--deadline`); a run ignores it. */
  sweep: sweepSettingsSchema.optional(),
  /** US dollars per million tokens, by model name (as the backend reports it; the simulator is `sim`): costs in the summary, and `budget.usd`. */
  prices: pricesSchema.optional(),
  /** What the run keeps in memory however long the stream (src/population/state-bounds.ts; docs/running.md, "Bounded state"). */
  bounds: stateBoundsSchema.prefault({}),
  grading: z.strictObject({
    /** Long-lived sandbox workers for code grading. */
    codeWorkers: int().min(1).max(32).default(2),
    /**
     * Per-candidate CPU-time limit (ms) for its probes and again for its scripts: load on the host
     * does not count against it. A candidate that sleeps is cut at 10x this in wall time.
     */
    codeTimeoutMs: int().min(100).default(3000),
    /** Run candidate code without bubblewrap when it is unavailable (weaker isolation; off by default). */
    allowUnsandboxed: z.boolean().default(false),
    /**
     * Keep code verdicts on disk for later runs, sweeps and calibrations: true for the user's cache
     * directory (~/.cache/evochamber/verdicts), or a directory (relative to the scenario's). Unset:
     * the environment's EVOCHAMBER_VERDICT_CACHE decides (src/tasks/graders/verdict-disk.ts).
     */
    verdictCache: z.union([z.boolean(), z.string().min(1)]).optional(),
  }).default({ codeWorkers: 2, codeTimeoutMs: 3000, allowUnsandboxed: false }),
}).superRefine((s, ctx) => {
  if (s.population.lifecycle.prune.window > s.bounds.historyWindow) {
    ctx.addIssue({ code: 'custom', path: ['bounds', 'historyWindow'], message: `must be at least population.lifecycle.prune.window (${s.population.lifecycle.prune.window}): prune reads that many of an agent's latest rewards` });
  }
  if (s.budget?.usd !== undefined && Object.keys(s.prices ?? {}).length === 0) {
    ctx.addIssue({ code: 'custom', path: ['budget', 'usd'], message: 'a budget in US dollars needs prices (the scenario\'s "prices", or --price MODEL=INPUT/OUTPUT)' });
  }
  if (s.memory.embedder !== undefined && s.model.backend === 'openai' && s.model.embeddings !== undefined) {
    ctx.addIssue({ code: 'custom', path: ['memory', 'embedder'], message: 'model.embeddings already chooses how lessons are embedded (the endpoint\'s /v1/embeddings); keep one of the two' });
  }
  if (s.sweepBudget?.usd !== undefined && Object.keys(s.prices ?? {}).length === 0) {
    ctx.addIssue({ code: 'custom', path: ['sweepBudget', 'usd'], message: 'a budget in US dollars needs prices (the scenario\'s "prices", or --price MODEL=INPUT/OUTPUT)' });
  }
});

/** A validated scenario. */
export type Scenario = z.infer<typeof scenarioSchema>;
/** `engine.inFlight`: a fixed window of tasks in flight, or `"auto"` (the adaptive controller). */
export type InFlight = Scenario['engine']['inFlight'];
/** A scenario as written in a file (defaults not yet applied). */
export type ScenarioInput = z.input<typeof scenarioSchema>;
