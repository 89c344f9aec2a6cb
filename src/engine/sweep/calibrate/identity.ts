import type { ScenarioPatch } from '../../../core/scenario-patch';
import { applyScenarioPatch } from '../../scenario/apply-patch';
import type { Scenario } from '../../scenario/scenario-schema';
import { canonical } from './canonical';
import { hashOf } from './journal';
import type { Target } from './targets';

/** Version of what the identity hashes: a new version refuses every older journal, so change it only with the hashed content. */
const IDENTITY_VERSION = 2;

export { canonical };

/**
 * The part of a scenario a run's outcome depends on: all of it but its name and description, and
 * its world's provenance (`sim.world`'s name, description, `fit` and `source`, the file it was read
 * from: the simulator reads only its `params` and `niches`). `variant` and `seed` are left out too:
 * every calibration run sets both.
 */
export function evaluatedScenario(scenario: Scenario): unknown {
  const { name: _name, description: _description, variant: _variant, seed: _seed, ...rest } = scenario as Scenario & { description?: string };
  const sim = rest.sim as Record<string, unknown> | undefined;
  const world = sim?.world;
  if (world === undefined || world === null || typeof world !== 'object') return canonical(rest);
  const { name: _w, description: _d, fit: _f, source: _s, ...content } = world as Record<string, unknown>;
  return canonical({ ...rest, sim: { ...sim, world: content } });
}

/** What `calibrationIdentity` reads of a calibration's options. */
export interface IdentityInput {
  readonly targets: readonly Target[];
  /** The fitted parameters (calibrate.ts's FitParameter). */
  readonly parameters: readonly { readonly name: string; readonly niche?: string; readonly lo: number; readonly hi: number; readonly start: number }[];
  readonly seeds: readonly number[];
  readonly patch?: ScenarioPatch;
  readonly identity?: unknown;
}

/**
 * A calibration's identity, the key its journal is filed under: a hash of what determines its
 * evaluations and nothing else — each target (variant, niche, accuracy, standard error) with the
 * content of its scenario under every run's patch (`evaluatedScenario`), the parameters fitted
 * (name, niche, bounds, start), the seeds, and the caller's `identity`. So a journal is refused
 * when its evaluations would differ, and read back after a change that moves none of them (a
 * renamed or moved world file, a reordered schema, a new description).
 */
export function calibrationIdentity(o: IdentityInput): string {
  const scenarios = new Map<Target['loaded'], unknown>();
  const content = (t: Target) => {
    let c = scenarios.get(t.loaded);
    if (c === undefined) scenarios.set(t.loaded, c = evaluatedScenario(applyScenarioPatch(t.loaded, o.patch).scenario));
    return c;
  };
  return hashOf(canonical({
    v: IDENTITY_VERSION,
    identity: o.identity ?? null,
    seeds: o.seeds,
    parameters: o.parameters.map((p) => ({ name: p.name, niche: p.niche ?? null, lo: p.lo, hi: p.hi, start: p.start })),
    targets: o.targets.map((t) => ({ variant: t.variant, niche: t.niche, accuracy: t.accuracy, se: t.se, scenario: content(t) })),
  }));
}
