import path from 'node:path';
import { applyScenarioPatch } from '../engine/scenario/apply-patch';
import { type ScenarioPatch } from '../core/scenario-patch';
import type { LoadedScenario } from '../engine/scenario/scenario';

/** parseArgs option spec of `--world`. */
export const WORLD_FLAG_OPTIONS = { world: { type: 'string' } } as const;

/** Help line of `--world`. */
export const WORLD_FLAG_HELP = `  --world FILE      the simulator's world (docs/calibration.md): a world file, or a bundled
                    world's name (scenarios/worlds/); replaces the scenario's sim.world`;

/**
 * `--world FILE` as a scenario patch: the simulator's plug-in reads the file when the scenario is
 * loaded (the engine never sees it). A path is made absolute, so it means what it meant where the
 * command ran; a bare name stays a bundled world's name.
 */
export function worldPatch(value: string | undefined): ScenarioPatch {
  if (value === undefined) return {};
  const bare = !value.includes('/') && !value.includes('\\') && !value.endsWith('.json');
  return { 'sim.world': bare ? value : path.resolve(value) };
}

/** A loaded scenario with `--world` applied (unchanged without it): a patch, applied where a command needs the scenario itself. */
export function applyWorldFlag(loaded: LoadedScenario, value: string | undefined): LoadedScenario {
  return applyScenarioPatch(loaded, worldPatch(value));
}
