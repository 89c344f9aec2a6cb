import { patched, type PatchPath, type ScenarioPatch } from '../../core/scenario-patch';
import { parseScenario, type LoadedScenario } from './scenario';

/**
 * A scenario with a patch applied: each entry set at its path, in order, then the whole validated
 * by the scenario schema (an error names the file and the field, which is the entry's path). An
 * empty patch gives the scenario back as it is. The one place a scenario is overridden.
 */
export function applyScenarioPatch(loaded: LoadedScenario, patch: ScenarioPatch | undefined): LoadedScenario {
  if (!patch || Object.keys(patch).length === 0) return loaded;
  return parseScenario(patched(loaded.scenario, patch), `${loaded.file} (with overrides)`, loaded.dir);
}

/** The paths of `patch` outside `allowed` (a path is inside when it is one of them or below one). */
export function pathsOutside(patch: ScenarioPatch, allowed: readonly PatchPath[]): string[] {
  return Object.keys(patch).filter((p) => !allowed.some((a) => p === a || p.startsWith(`${a}.`)));
}

/** Options that were scenario settings before runs took one patch, and the path each is now. */
export const RUN_SETTINGS: Readonly<Record<string, string>> = {
  variant: 'variant', seed: 'seed', tasks: 'stream.tasks', inFlight: 'engine.inFlight', staleness: 'engine.staleness',
  evolveTiming: 'engine.evolveTiming', budget: 'budget',
};

/** The same for a sweep's options (its budget is the scenario's `sweepBudget`). */
export const SWEEP_SETTINGS: Readonly<Record<string, string>> = {
  ...RUN_SETTINGS, budget: 'sweepBudget', prices: 'prices',
  parallel: 'sweep.parallel', jobs: 'sweep.jobs', priorities: 'sweep.priorities', deadlineHours: 'sweep.deadlineHours',
};

/**
 * A caller (plain JavaScript has no type check, a spread object none either) passing a scenario
 * setting as an option: one line naming it and the path to give it in the patch, instead of a run
 * that silently ignores it.
 */
export function refuseScenarioOptions(opts: object, fn: string, moved: Readonly<Record<string, string>>): void {
  const key = Object.keys(opts).find((k) => Object.hasOwn(moved, k));
  if (key !== undefined) throw new Error(`${fn}: "${key}" is a scenario setting, not an option: give it in the patch ({ patch: { "${moved[key]}": … } })`);
}
