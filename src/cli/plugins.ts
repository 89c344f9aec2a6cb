import { registerModelPlugin } from '../engine/model-plugins';
import { simPlugin } from '../sim/sim-plugin';

/**
 * Plug in the built-in model plug-ins (the simulated model) before a command loads a scenario. The
 * CLI and the package entry are where models are composed: the engine never names the simulator.
 */
export function useBuiltinPlugins(): void {
  registerModelPlugin(simPlugin);
}
