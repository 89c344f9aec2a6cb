import { z } from 'zod';
import { knobSchema, type Knob } from '../../core/knob';
import { MEMORY_KNOBS } from '../../individual/memory-knobs';
import { DREAM_KNOBS } from '../../population/codream/codream';
import { ROUTING_KNOBS } from '../../population/codream/routing';
import { LIFECYCLE_KNOBS } from '../../population/lifecycle';
import { STALENESS_KNOBS } from '../../population/staleness';
import { ASSEMBLERS } from '../../team/assemblers';
import { CHOOSER_REGISTRY } from '../../team/choosers';
import { choosableStructures, type StructureRegistry } from '../../team/structures';
import type { Preset } from '../scenario/presets';
import { ScenarioError, type LoadedScenario } from '../scenario/scenario';
import { applyScenarioPatch } from '../scenario/apply-patch';
import { scenarioKnobs, type KnobPath } from '../scenario/knob-path';
import { valueAt } from '../../core/scenario-patch';

/** The procedure now: each knob's value, by the knob's path (a document `procedureSchema` validates). */
export type Procedure = Readonly<Record<string, unknown>>;

/** A change one accepted patch made. */
export interface KnobChange {
  readonly path: string;
  readonly from: unknown;
  readonly to: unknown;
}

/**
 * Parts of a scenario no patch may touch: graders, gold and the stream (the evaluator), the model
 * and its endpoints, budgets and prices (the hard caps), the seed, the simulator's world, the meta
 * settings themselves. A patch naming one is rejected whole.
 */
export const FROZEN = [
  'schemaVersion', 'name', 'description', 'seed', 'variant', 'stream', 'agents', 'model', 'sim', 'grading', 'graders', 'gold',
  'budget', 'prices', 'meta', 'events', 'log', 'memory.eta', 'memory.c0', 'team.synergyEta', 'team.synergy0',
  'population.lifecycle.minAgents', 'population.lifecycle.maxAgents', 'population.lifecycle.specialist', 'structures.speculative', 'engine.auto', 'engine.evolveTiming',
] as const;

/** Most knobs one patch may set. */
const MAX_PATCH_ENTRIES = 32;

/**
 * The knobs of the procedure for this preset: each part that runs declares its own (the assembler,
 * the chooser, the structures it may use, memory, CoDream, the lifecycle window and its operators),
 * plus the engine's: the staleness policy and τ, tasks in flight, and the structures offered to
 * the leader. A part the preset switches off offers none.
 */
export function procedureKnobs(preset: Preset, structures: StructureRegistry): Knob<KnobPath>[] {
  const choosable = choosableStructures(structures).map((s) => s.name);
  // The structures this preset can run: its fixed one, or every choosable one.
  const used = preset.chooser === 'fixed' ? [...structures.values()].filter((s) => s.name === preset.structure) : choosableStructures(structures);
  // The engine's own knobs, typed by the schema; the parts' are checked against it below.
  const offered: Knob<KnobPath>[] = preset.chooser !== 'fixed' ? [{ kind: 'list', path: 'team.offered', values: choosable, minItems: Math.min(2, choosable.length), description: 'the structures the leader may choose from' }] : [];
  const inFlight: Knob<KnobPath> = { kind: 'int', path: 'engine.inFlight', min: 1, max: 64, description: 'tasks in flight at once' };
  const knobs: Knob[] = [
    ...(preset.memory ? MEMORY_KNOBS : []),
    ...(ASSEMBLERS[preset.assembler]?.knobs ?? []),
    ...(CHOOSER_REGISTRY.get(preset.chooser)?.knobs ?? []),
    ...offered,
    ...used.flatMap((s) => s.knobs ?? []),
    ...(preset.codream !== 'off' ? [...DREAM_KNOBS, ...ROUTING_KNOBS] : []),
    ...(preset.lifecycle && preset.pool === 'scenario' ? LIFECYCLE_KNOBS : []),
    ...STALENESS_KNOBS,
    inFlight,
  ];
  // A knob declared twice (two structures sharing a setting) is one knob.
  return scenarioKnobs([...new Map(knobs.map((k) => [k.path, k])).values()]);
}

/**
 * The procedure as a typed, schema-validated document (zod): one entry per knob, keyed by its path,
 * each value of its knob's type and within its bounds, and no other entry. A patch is validated
 * against its partial form; every procedure version against the whole.
 */
export function procedureSchema(knobs: readonly Knob[]): z.ZodObject {
  return z.strictObject(Object.fromEntries(knobs.map((k) => [k.path, knobSchema(k)])));
}

/** The knob values of `procedure` outside their bounds (or missing), one message each; empty when it validates. */
export function procedureViolations(procedure: Procedure, knobs: readonly Knob[]): string[] {
  const r = procedureSchema(knobs).safeParse(procedure);
  return r.success ? [] : r.error.issues.map((i) => i.message);
}

export { valueAt };

/** The procedure now: each knob's value in the scenario (CoDream routing as the preset sets it, an unset list as all its items). */
export function procedureOf(loaded: LoadedScenario, knobs: readonly Knob[], preset: Preset): Procedure {
  const out: Record<string, unknown> = {};
  for (const k of knobs) {
    let v = valueAt(loaded.scenario, k.path);
    if (v === undefined && k.path === 'population.codream.routing') v = preset.codream === 'symmetric' ? 'symmetric' : 'asymmetric';
    if (v === undefined && k.kind === 'list') v = k.values; // an unset list (offered structures, CoDream phases): all of them
    if (v === undefined && k.kind === 'text') v = '';
    out[k.path] = v;
  }
  return out;
}

/** A patch checked against the knobs: the scenario it makes and what it changed, or why it is rejected whole. */
export type PatchResult =
  | { readonly ok: true; readonly loaded: LoadedScenario; readonly changes: readonly KnobChange[] }
  | { readonly ok: false; readonly reason: string };

function isFrozen(path: string): boolean {
  return FROZEN.some((f) => path === f || path.startsWith(`${f}.`) || f.startsWith(`${path}.`));
}

/**
 * Apply a patch (`{ "<knob path>": value, … }`) to the scenario, all or nothing: every path must
 * name a knob of this procedure (a frozen part or an unknown path rejects the patch), every value
 * must lie within its knob's bounds, and the scenario must still validate. A value equal to the
 * current one changes nothing and is left out of `changes`.
 */
export function applyPatch(loaded: LoadedScenario, patch: unknown, knobs: readonly Knob[], current: Procedure): PatchResult {
  if (patch === null || typeof patch !== 'object' || Array.isArray(patch)) return { ok: false, reason: 'the patch is not an object of knob paths' };
  const entries = Object.entries(patch as Record<string, unknown>);
  if (entries.length > MAX_PATCH_ENTRIES) return { ok: false, reason: `the patch sets ${entries.length} knobs, at most ${MAX_PATCH_ENTRIES}` };
  const paths = new Set(knobs.map((k) => k.path));
  for (const [path] of entries) {
    if (isFrozen(path)) return { ok: false, reason: `${path} is frozen (graders, gold answers, the stream, the model, budgets and the log are out of the meta-editor's reach)` };
    if (!paths.has(path)) return { ok: false, reason: `${path} is not a knob of this procedure` };
  }
  // Every value of its knob's type and within its bounds: the procedure's schema, in part.
  const checked = procedureSchema(knobs).partial().safeParse(patch);
  if (!checked.success) return { ok: false, reason: checked.error.issues[0]!.message };
  const changes: KnobChange[] = [];
  const changed: Record<string, unknown> = {};
  for (const [path, value] of entries) {
    if (JSON.stringify(current[path]) === JSON.stringify(value)) continue;
    changes.push({ path, from: current[path], to: value });
    changed[path] = value;
  }
  if (changes.length === 0) return { ok: true, loaded, changes };
  try {
    // A meta edit is a scenario patch like any other override, validated by the scenario schema as it is applied.
    return { ok: true, loaded: applyScenarioPatch(loaded, changed), changes };
  } catch (err) {
    return { ok: false, reason: err instanceof ScenarioError ? `${err.field}: ${err.message.split(': ').pop()}` : String((err as Error).message) };
  }
}
