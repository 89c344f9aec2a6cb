import { z } from 'zod';

const int = () => z.number().int();
const unit = () => z.number().min(0).max(1);

/** When an agent counts as a niche's specialist (shared by genesis, the window report and stability). */
export const specialistConfigSchema = z.strictObject({
  /** Lead in competence over the niche's second-best agent needed to be its specialist. */
  margin: unit().default(0.1),
  /** Tasks on the niche the leader must have seen (exposure) to be its specialist. */
  minExposure: int().min(0).default(5),
  /** Consecutive lifecycle windows, up to the latest, a specialist must hold its niche to count as stable. */
  stableWindows: int().min(1).default(2),
});

/** Genesis: a recurring niche with no specialist gets a new agent spawned from the most generalist parent. */
export const genesisConfigSchema = z.strictObject({
  /** Whether the operator runs at all. */
  enabled: z.boolean().default(true),
  /** Tasks of the niche in the last window needed to call it recurring. */
  minRecurrence: int().min(1).default(10),
  /** Generalist score = mean competence − spreadPenalty · std of competence across niches. */
  spreadPenalty: z.number().min(0).default(1),
  /** Genesis decisions per window at most. */
  maxPerWindow: int().min(0).default(1),
});

/** Fork: an agent that dominates a niche is cloned (parent kept), the clone aimed at that niche. */
export const forkConfigSchema = z.strictObject({
  /** Whether the operator runs at all. */
  enabled: z.boolean().default(true),
  /** Lead in competence over the niche's next best agent needed to dominate it. */
  margin: unit().default(0.15),
  /** Competence on the niche the dominant agent must reach. */
  minCompetence: unit().default(0.7),
  /** Tasks on the niche the dominant agent must have seen (exposure). */
  minExposure: int().min(0).default(10),
  /** Fork decisions per window at most. */
  maxPerWindow: int().min(0).default(1),
});

/** Merge: two agents with near-identical competence profiles become one; the other retires. */
export const mergeConfigSchema = z.strictObject({
  /** Whether the operator runs at all. */
  enabled: z.boolean().default(true),
  /** Style overlap (cosine of competence vectors over the seen niches) the pair must reach. */
  minOverlap: unit().default(0.98),
  /** Largest absolute competence difference on any seen niche the pair may have. */
  maxGap: unit().default(0.05),
  /** Own observations (`history` length, so inherited exposure does not count) each agent needs. */
  minObservations: int().min(0).default(10),
  /** Merge decisions per window at most. */
  maxPerWindow: int().min(0).default(1),
});

/** Prune: an agent whose recent score lags the pool mean is retired. */
export const pruneConfigSchema = z.strictObject({
  /** Whether the operator runs at all. */
  enabled: z.boolean().default(true),
  /** Last observations (from `history`) averaged into the recent score; agents with fewer are not judged. */
  window: int().min(1).default(20),
  /** How far (in reward, 0–1) an agent's recent rewards must fall below the pool's on the same niches. */
  lag: unit().default(0.2),
  /** Prune decisions per window at most. */
  maxPerWindow: int().min(0).default(1),
});

/** Specialize: a strong agent's persona is nudged toward its dominant niche. */
export const specializeConfigSchema = z.strictObject({
  /** Whether the operator runs at all. */
  enabled: z.boolean().default(true),
  /** Competence on the agent's dominant niche it must reach. */
  minCompetence: unit().default(0.7),
  /** Lead of the dominant niche over the agent's own second-best niche. */
  margin: unit().default(0.15),
  /** Tasks on the dominant niche the agent must have seen (exposure). */
  minExposure: int().min(0).default(5),
  /** Specialize decisions per window at most. */
  maxPerWindow: int().min(0).default(2),
});

/**
 * Lifecycle settings: the schedule, the roster bounds and each operator's trigger. Every field
 * has a default (`lifecycleConfigSchema.parse({})` is `DEFAULT_LIFECYCLE`); unknown fields are
 * errors so a typo never silently falls back to a default.
 */
export const lifecycleConfigSchema = z
  .strictObject({
    /** Tasks between lifecycle windows (K). */
    every: int().min(1).default(60),
    /** Fewest active agents the roster may have (it must also stay larger than the team). */
    minAgents: int().min(1).default(3),
    /** Most active agents the roster may have. */
    maxAgents: int().min(1).default(8),
    /** Who counts as a specialist. */
    specialist: specialistConfigSchema.prefault({}),
    /** Genesis trigger. */
    genesis: genesisConfigSchema.prefault({}),
    /** Fork trigger. */
    fork: forkConfigSchema.prefault({}),
    /** Merge trigger. */
    merge: mergeConfigSchema.prefault({}),
    /** Prune trigger. */
    prune: pruneConfigSchema.prefault({}),
    /** Specialize trigger. */
    specialize: specializeConfigSchema.prefault({}),
  })
  .refine((c) => c.minAgents <= c.maxAgents, { message: 'lifecycle: minAgents must not exceed maxAgents', path: ['maxAgents'] });

/** Validated lifecycle settings. */
export type LifecycleConfig = z.infer<typeof lifecycleConfigSchema>;
/** Lifecycle settings as written in a scenario (every field optional). */
export type LifecycleConfigInput = z.input<typeof lifecycleConfigSchema>;

/** Every lifecycle setting at its default. */
export const DEFAULT_LIFECYCLE: LifecycleConfig = lifecycleConfigSchema.parse({});
