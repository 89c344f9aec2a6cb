import { z } from 'zod';
import { LIFECYCLE_OPERATOR_LIST } from './index';
import { unitInterval } from './operator';

const int = () => z.number().int();
/** When an agent counts as a niche's specialist (shared by genesis, the window report and stability). */
export const specialistConfigSchema = z.strictObject({
  /** Lead in competence over the niche's second-best agent needed to be its specialist. */
  margin: unitInterval().default(0.1),
  /** Tasks on the niche the leader must have seen (exposure) to be its specialist. */
  minExposure: int().min(0).default(5),
  /** Consecutive lifecycle windows, up to the latest, a specialist must hold its niche to count as stable. */
  stableWindows: int().min(1).default(2),
});

// An operator's settings sit beside the window's own at `lifecycle.<name>`: a name must not take theirs.
for (const d of LIFECYCLE_OPERATOR_LIST) {
  if ((['every', 'minAgents', 'maxAgents', 'specialist', 'personaNote'] as readonly string[]).includes(d.name)) throw new Error(`lifecycle operator name "${d.name}" is a lifecycle setting`);
}

type OperatorShape = { [O in (typeof LIFECYCLE_OPERATOR_LIST)[number] as O['name']]: z.ZodPrefault<O['config']> };

/** Each operator's trigger settings at `lifecycle.<name>`, from its descriptor (an absent block takes every default). */
const operatorShape = Object.fromEntries(
  LIFECYCLE_OPERATOR_LIST.map((d) => [d.name, (d.config as z.ZodObject).prefault({})]),
) as unknown as OperatorShape;

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
    /** Added to the persona writer's instructions (a meta-editor's edit; none by default). */
    personaNote: z.string().max(300).optional(),
    /** Each operator's trigger (genesis, fork, merge, prune, specialize: see their files). */
    ...operatorShape,
  })
  .refine((c) => c.minAgents <= c.maxAgents, { message: 'lifecycle: minAgents must not exceed maxAgents', path: ['maxAgents'] });

/** Validated lifecycle settings. */
export type LifecycleConfig = z.infer<typeof lifecycleConfigSchema>;
/** Lifecycle settings as written in a scenario (every field optional). */
export type LifecycleConfigInput = z.input<typeof lifecycleConfigSchema>;

/** Every lifecycle setting at its default. */
export const DEFAULT_LIFECYCLE: LifecycleConfig = lifecycleConfigSchema.parse({});
