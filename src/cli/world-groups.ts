import type { LoadedScenario } from '../engine/scenario/scenario';
import { nicheGroups, groupedNiches } from '../tasks/niche-groups';
import { loadBuiltinNicheSpecs } from '../tasks/niche-registry';
import { worldWithValues, type WorldFile, type WorldFitParameter } from '../sim/sim-world-file';

/** Group name → member niche ids, over the streams of `scenarios` (a niche file's `group`: `aime` → the four AIME years). */
export function streamGroups(scenarios: readonly LoadedScenario[]): Map<string, string[]> {
  const specs = loadBuiltinNicheSpecs();
  const out = new Map<string, string[]>();
  for (const l of scenarios) {
    const ids = l.scenario.stream.niches.map((n) => n.id);
    for (const [g, members] of nicheGroups(groupedNiches(ids, (id) => specs.get(id)))) {
      if (!ids.includes(g)) out.set(g, [...new Set([...(out.get(g) ?? []), ...members])]);
    }
  }
  return out;
}

/**
 * A world with fitted values set (worldWithValues), where a per-niche parameter named for a group
 * (`base@aime` on a stream whose AIME years are niches of the group `aime`) is set for every
 * member niche too: one fitted value for the niches a published figure covers together.
 */
export function worldWithGroupValues(base: Pick<WorldFile, 'params' | 'niches'> | undefined, fit: readonly WorldFitParameter[], values: readonly number[], groups: ReadonlyMap<string, readonly string[]>): Pick<WorldFile, 'params' | 'niches'> {
  const w = worldWithValues(base, fit, values);
  const niches = w.niches as Record<string, Record<string, unknown>>;
  fit.forEach((p, i) => {
    for (const m of (p.niche !== undefined ? groups.get(p.niche) : undefined) ?? []) (niches[m] = { ...(niches[m] ?? {}) })[p.param] = values[i];
  });
  return w;
}
