/** Pair synergy S[i][j][n]: EWMA of team reward on niche n over tasks where i and j served together. Symmetric. */
export type SynergyTable = ReadonlyMap<string, number>;

/** The table key of an unordered pair on a niche. */
export function synergyKey(i: string, j: string, niche: string): string {
  return i < j ? `${i}|${j}|${niche}` : `${j}|${i}|${niche}`;
}

/** S[i][j][n], or `s0` for a pair that never served together on the niche. */
export function synergyOf(table: SynergyTable, i: string, j: string, niche: string, s0: number): number {
  return table.get(synergyKey(i, j, niche)) ?? s0;
}

/** One synergy change, for the event log. */
export interface SynergyChange {
  readonly a: string;
  readonly b: string;
  readonly niche: string;
  readonly value: number;
}

/**
 * Apply one team outcome: every pair of members moves S ← (1−η)·S + η·r. Returns the new table
 * and the changes (pairs in member order).
 */
export function updateSynergy(
  table: SynergyTable, members: readonly string[], niche: string, reward: number, eta: number, s0: number,
): { table: Map<string, number>; changes: SynergyChange[] } {
  const next = new Map(table);
  const changes: SynergyChange[] = [];
  for (let x = 0; x < members.length; x++) {
    for (let y = x + 1; y < members.length; y++) {
      const a = members[x]!;
      const b = members[y]!;
      const value = (1 - eta) * synergyOf(next, a, b, niche, s0) + eta * reward;
      next.set(synergyKey(a, b, niche), value);
      changes.push({ a, b, niche, value });
    }
  }
  return { table: next, changes };
}
