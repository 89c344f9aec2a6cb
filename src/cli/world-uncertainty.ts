import { parseFitName, worldWithValues, WORLD_SCHEMA_VERSION, type InlinedWorld } from '../sim/sim-world-file';
import type { WorldUncertainty } from '../engine/sweep/calibrate/prediction';

/** What `calibrate` writes into a world's `fit` that a prediction reads. */
interface RecordedFit {
  readonly parameters?: readonly { readonly name: string; readonly value: number; readonly lo?: number; readonly hi?: number }[];
  readonly covariance?: readonly (readonly number[])[] | null;
}

/**
 * The fitted parameters of a world and their covariance, from its `fit` (docs/calibration.md), or
 * undefined when it records none (a hand-written world, or a fit whose surface was singular). The
 * parameters are named as `--fit` names them, so any parameter the world declares fittable plugs in.
 */
export function worldUncertainty(world: InlinedWorld, label: string): WorldUncertainty | undefined {
  const fit = world.fit as RecordedFit | undefined;
  const ps = fit?.parameters;
  const cov = fit?.covariance;
  if (!ps?.length || !cov || cov.length !== ps.length) return undefined;
  const parsed = ps.map((p) => {
    try {
      return parseFitName(p.name, world);
    } catch (err) {
      throw new Error(`world ${label}: fit.parameters: ${(err as Error).message}`);
    }
  });
  return {
    names: ps.map((p) => p.name),
    values: ps.map((p) => p.value),
    bounds: ps.map((p, i) => [p.lo ?? parsed[i]!.lo, p.hi ?? parsed[i]!.hi] as const),
    covariance: cov.map((row) => [...row]),
    worldAt: (v) => ({ schemaVersion: WORLD_SCHEMA_VERSION, name: world.name, ...worldWithValues(world, parsed, v) }),
  };
}
