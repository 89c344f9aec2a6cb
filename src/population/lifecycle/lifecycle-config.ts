import { z } from 'zod';
import { LIFECYCLE_OPERATOR_KINDS, LIFECYCLE_OPERATOR_LIST } from './index';
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
const WINDOW_SETTINGS: readonly string[] = ['every', 'minAgents', 'maxAgents', 'specialist', 'personaNote'];
for (const d of LIFECYCLE_OPERATOR_KINDS.list()) checkOperatorName(d.name);
LIFECYCLE_OPERATOR_KINDS.onRegister((d) => checkOperatorName(d.name));

function checkOperatorName(name: string): void {
  if (WINDOW_SETTINGS.includes(name)) throw new Error(`lifecycle operator name "${name}" is a lifecycle setting`);
}

type OperatorShape = { [O in (typeof LIFECYCLE_OPERATOR_LIST)[number] as O['name']]: z.ZodPrefault<O['config']> };

/** Each built-in operator's trigger settings at `lifecycle.<name>`, from its descriptor (an absent block takes every default). */
const operatorShape = Object.fromEntries(
  LIFECYCLE_OPERATOR_LIST.map((d) => [d.name, (d.config as z.ZodObject).prefault({})]),
) as unknown as OperatorShape;

/** The lifecycle's own fields and the built-in operators' blocks. */
const lifecycleShape = {
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
};

/**
 * A registered operator's block (`registerLifecycleOperator`, after this schema was built): checked
 * with its descriptor's config, its defaults filled in; any other unknown field is an error, as in a
 * strict object, so a typo never silently falls back to a default.
 */
function registeredBlocks(c: Record<string, unknown>, ctx: z.RefinementCtx): Record<string, unknown> {
  const out: Record<string, unknown> = { ...c };
  const unknown = Object.keys(c).filter((k) => !Object.hasOwn(lifecycleShape, k) && !LIFECYCLE_OPERATOR_KINDS.get(k));
  if (unknown.length) ctx.addIssue({ code: 'unrecognized_keys', keys: unknown, input: c });
  for (const d of LIFECYCLE_OPERATOR_KINDS.list()) {
    if (Object.hasOwn(lifecycleShape, d.name)) continue;
    const r = (d.config as z.ZodType).safeParse(c[d.name] ?? {});
    if (r.success) out[d.name] = r.data;
    else for (const issue of r.error.issues) ctx.addIssue({ ...issue, path: [d.name, ...issue.path] } as never);
  }
  return out;
}

/**
 * Lifecycle settings: the schedule, the roster bounds and each operator's trigger. Every field
 * has a default (`lifecycleConfigSchema.parse({})` is `DEFAULT_LIFECYCLE`); unknown fields are
 * errors so a typo never silently falls back to a default.
 */
export const lifecycleConfigSchema = z
  .object(lifecycleShape)
  .catchall(z.unknown())
  .transform((c, ctx) => registeredBlocks(c, ctx) as typeof c)
  .refine((c) => c.minAgents <= c.maxAgents, { message: 'lifecycle: minAgents must not exceed maxAgents', path: ['maxAgents'] });

/** Validated lifecycle settings. */
export type LifecycleConfig = z.infer<typeof lifecycleConfigSchema>;
/** Lifecycle settings as written in a scenario (every field optional). */
export type LifecycleConfigInput = z.input<typeof lifecycleConfigSchema>;

/** Every lifecycle setting at its default. */
export const DEFAULT_LIFECYCLE: LifecycleConfig = lifecycleConfigSchema.parse({});
