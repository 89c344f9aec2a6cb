import type { Knob, SettingPath } from '../../core/knob';
import type { PatchPathOf } from '../../core/scenario-patch';
import { schemasAt } from './scenario-keys';
import { scenarioSchema, type Scenario } from './scenario-schema';

/**
 * A scenario setting a knob may name, by its dotted path: derived from the scenario schema, so a
 * knob the engine declares with a path the schema does not have fails to compile.
 */
export type KnobPath = SettingPath<Scenario>;

// Every patch written in code names the scenario's paths (core/scenario-patch.ts, `ScenarioPaths`).
declare module '../../core/scenario-patch' {
  interface ScenarioPaths {
    readonly path: PatchPathOf<Scenario>;
  }
}

/** Whether `path` names a setting of the scenario schema (a value, not a section of settings). */
export function isKnobPath(path: string): path is KnobPath {
  const at = schemasAt(scenarioSchema, path.split('.'));
  return at.length > 0 && at.every((d) => d.type !== 'object');
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
