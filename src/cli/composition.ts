import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { registerModelPlugin } from '../engine/scenario/model-plugins';
import type { LocalSweepOptions } from '../engine/sweep/sweep-local';
import { simPlugin } from '../sim/sim-plugin';

/**
 * Plug in the built-in model plug-ins (the simulated model) before a command loads a scenario. The
 * CLI and the package entry are where models are composed: the engine never names the simulator.
 */
export function useBuiltinPlugins(): void {
  registerModelPlugin(simPlugin);
}

/**
 * The script a sweep's worker process runs (`ablate --jobs N`): run-child beside this file, in
 * the sources (run through tsx) or in dist/.
 */
export const RUN_CHILD_ENTRY = fileURLToPath(new URL(`./run-child${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url));

/** A sweep's defaults where models are composed: worker processes on every core, running run-child. */
export function withSweepDefaults<O extends LocalSweepOptions>(opts: O): O {
  return { jobs: availableParallelism(), childEntry: RUN_CHILD_ENTRY, ...opts };
}
