import type { z } from 'zod';
import type { Knob, SettingPath } from '../../core/knob';
import { scenarioSchema, type Scenario } from './scenario-schema';

/**
 * A scenario setting a knob may name, by its dotted path: derived from the scenario schema, so a
 * knob the engine declares with a path the schema does not have fails to compile.
 */
export type KnobPath = SettingPath<Scenario>;

/** The schema of the setting at `path` in `schema` (through defaults, optionals and nullables), or null. */
function settingSchema(schema: z.ZodType, path: string): z.ZodType | null {
  let at: z.ZodType | undefined = schema;
  for (const key of path.split('.')) {
    at = at && unwrap(at);
    const shape: Record<string, z.ZodType> | undefined = at ? (at as { _zod: { def: { shape?: Record<string, z.ZodType> } } })._zod.def.shape : undefined;
    at = shape && Object.hasOwn(shape, key) ? shape[key] : undefined;
    if (!at) return null;
  }
  return at ?? null;
}

function unwrap(schema: z.ZodType): z.ZodType {
  let s = schema as { _zod: { def: { type: string; innerType?: z.ZodType; in?: z.ZodType } } };
  while (s._zod.def.innerType ?? (s._zod.def.type === 'pipe' ? s._zod.def.in : undefined)) s = (s._zod.def.innerType ?? s._zod.def.in) as never;
  return s as unknown as z.ZodType;
}

/** Whether `path` names a setting of the scenario schema (a value, not a section of settings). */
export function isKnobPath(path: string): path is KnobPath {
  const at = settingSchema(scenarioSchema, path);
  return at !== null && (unwrap(at) as unknown as { _zod: { def: { type: string } } })._zod.def.type !== 'object';
}

/**
 * `knobs` as knobs of the scenario. Descriptors below the engine (structures, assemblers, choosers,
 * memory, CoDream, the lifecycle) cannot see the scenario's type and declare paths as strings: each
 * is checked here, and one the schema does not have throws, naming it.
 */
export function scenarioKnobs(knobs: readonly Knob[]): Knob<KnobPath>[] {
  for (const k of knobs) if (!isKnobPath(k.path)) throw new Error(`knob "${k.path}" (${k.description}) names no setting of the scenario schema`);
  return knobs as Knob<KnobPath>[];
}
