import { existsSync } from 'node:fs';
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
 * the sources (run through tsx) or in dist/; from dist/, the build's bundle of it when there is one
 * (each worker then starts as fast as the command: docs/benchmarks.md, "Speed").
 */
const RUN_CHILD = fileURLToPath(new URL(`./run-child${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url));
const BUNDLED_RUN_CHILD = fileURLToPath(new URL('../bundle/run-child.js', import.meta.url));
export const RUN_CHILD_ENTRY = !RUN_CHILD.endsWith('.ts') && existsSync(BUNDLED_RUN_CHILD) ? BUNDLED_RUN_CHILD : RUN_CHILD;

/** A sweep's defaults where models are composed: worker processes on every core (unless its `sweep.jobs` says), running run-child. */
export function withSweepDefaults<O extends LocalSweepOptions>(opts: O): O {
  return { defaultJobs: availableParallelism(), childEntry: RUN_CHILD_ENTRY, ...opts };
}
