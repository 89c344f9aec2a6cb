/**
 * Niche groups (docs/calibration.md, "Targets"): a published figure may cover several niches of a
 * stream together (the paper reports AIME over its four years, which the Hard Math stream has as
 * four niches). A niche file's `group` names its group; a target's `niche` may name a niche id, a
 * group, or `all`. Shared by the simulator's streams and calibration's targets: one rule for what a
 * name covers.
 */

/** What a niche name in a target needs to know about a stream's niches. */
export interface GroupedNiche {
  readonly id: string;
  readonly group?: string;
}

/**
 * The niche ids of `niches` that `name` covers: every one for `all`; the niche itself when `name`
 * is an id of the stream (an id wins over a group of the same name); the members of the group
 * `name` otherwise, in stream order. Empty when it names nothing in the stream.
 */
export function nichesCovered(name: string, niches: readonly GroupedNiche[]): string[] {
  if (name === 'all') return niches.map((n) => n.id);
  if (niches.some((n) => n.id === name)) return [name];
  return niches.filter((n) => n.group === name).map((n) => n.id);
}

/** The groups the stream's niches form (group → member ids, in stream order). */
export function nicheGroups(niches: readonly GroupedNiche[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const n of niches) if (n.group !== undefined) out.set(n.group, [...(out.get(n.group) ?? []), n.id]);
  return out;
}

/** Every name a target may use on this stream: `all`, each niche id, each group. */
export function targetNames(niches: readonly GroupedNiche[]): string[] {
  return ['all', ...niches.map((n) => n.id), ...[...nicheGroups(niches).keys()].filter((g) => !niches.some((n) => n.id === g))];
}

/**
 * Pool per-niche tallies over what `name` covers (sums of counts and of rewards and their squares),
 * so a group's accuracy is its members' tasks together, as a published figure over them is.
 */
export function pooledOver<T extends { n: number; sum: number; sumSq: number }>(
  name: string, niches: readonly GroupedNiche[], tallies: ReadonlyMap<string, T>,
): { n: number; sum: number; sumSq: number } {
  const out = { n: 0, sum: 0, sumSq: 0 };
  for (const id of nichesCovered(name, niches)) {
    const t = tallies.get(id);
    if (t) { out.n += t.n; out.sum += t.sum; out.sumSq += t.sumSq; }
  }
  return out;
}

/** A stream's niche ids with their groups, read from their specs (`specOf`: e.g. the built-in registry's lookup). */
export function groupedNiches(ids: readonly string[], specOf: (id: string) => { readonly group?: string } | undefined): GroupedNiche[] {
  return ids.map((id) => {
    const group = specOf(id)?.group;
    return group === undefined ? { id } : { id, group };
  });
}
