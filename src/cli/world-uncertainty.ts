import { parseFitName, WORLD_SCHEMA_VERSION, type InlinedWorld } from '../sim/sim-world-file';
import { worldWithGroupValues } from './world-groups';
import type { WorldUncertainty } from '../engine/sweep/calibrate/prediction';

/** What `calibrate` writes into a world's `fit` that a prediction reads. */
interface RecordedFit {
  readonly parameters?: readonly { readonly name: string; readonly value: number; readonly lo?: number; readonly hi?: number }[];
  readonly covariance?: readonly (readonly number[])[] | null;
}

/**
 * The fitted parameters of a world and their covariance, from its `fit` (docs/calibration.md), or
 * undefined when it records none (a hand-written world, or a fit whose surface was singular). The
 * parameters are named as `--fit` names them, so any parameter the world declares fittable plugs in;
 * one named for a niche group (`base@aime`) is drawn for every member niche of `groups`.
 */
export function worldUncertainty(world: InlinedWorld, label: string, groups: ReadonlyMap<string, readonly string[]> = new Map()): WorldUncertainty | undefined {
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
    worldAt: (v) => ({ schemaVersion: WORLD_SCHEMA_VERSION, name: world.name, ...worldWithGroupValues(world, parsed, v, groups) }),
  };
}
