/** The table key of an unordered pair on a niche. */
export function synergyKey(i: string, j: string, niche: string): string {
  return i < j ? `${i}|${j}|${niche}` : `${j}|${i}|${niche}`;
}

/** One synergy change, for the event log. */
export interface SynergyChange {
  readonly a: string;
  readonly b: string;
  readonly niche: string;
  readonly value: number;
}

/**
 * A pair's values, oldest first, each after the pool version it was committed at (increasing):
 * `[at0, value0, at1, value1, …]`, one array exactly as long as it holds (a (pair, niche) cell is
 * made for every pair that ever served together: at 256 agents, most of a long stream's tasks make
 * new ones). Values no task in flight can read are forgotten as the pair is written (`apply`).
 */
type PairHistory = number[];

/** The read side of a synergy table: what task runs and assemblers see. */
export interface SynergyReader {
  /** S[i][j][n] as of pool version `asOf` (default: latest), or `s0` for a pair that never served together on the niche by then. */
  get(i: string, j: string, niche: string, s0: number, asOf?: number): number;
}

/**
 * Pair synergy S[i][j][n]: EWMA of team reward on niche n over tasks where i and j served
 * together. Symmetric. A shared, versioned index like the archive and the leadership bank: each
 * change is appended with the pool version it was committed at, and a task in flight reads the
 * table as of the version it started at. Appending is O(pairs) per task, so no task copies the
 * table. Written only by the population supervisor, inside its `applyUpdate` action.
 *
 * Versioned: every version shares the appended store, and a table value reads it as of its own
 * pool version (`upTo`), so a table held in an old snapshot never changes; `with` returns the
 * table as of a new version with one outcome folded in.
 */
export class SynergyTable implements SynergyReader {
  constructor(
    private readonly pairs = new Map<string, PairHistory>(),
    private readonly upTo = Infinity,
    /** Agents retired, with the pool version they retired at, whose cells are still kept (shared by every view). */
    private readonly retired: { id: string; at: number }[] = [],
  ) {}

  /** The table as of pool version `version` (sharing the store). */
  at(version: number): SynergyTable {
    return new SynergyTable(this.pairs, version, this.retired);
  }

  /**
   * `id` retired at pool version `version`: no team assembled from then on holds it, so its cells
   * are only for the tasks in flight that started before. They are forgotten (`apply`) once the
   * committing task started after `version`: the table's bound is the roster's, every pair of the
   * active agents (and of the ones retired while tasks they serve are in flight) on each niche.
   */
  retire(id: string, version: number): void {
    this.retired.push({ id, at: version });
  }

  /** The table as of `version` with one team outcome folded in (see `apply`), and the changes; this table reads as before. */
  with(members: readonly string[], niche: string, reward: number, eta: number, s0: number, version: number, oldestRead = -Infinity): { table: SynergyTable; changes: SynergyChange[] } {
    const changes = this.apply(members, niche, reward, eta, s0, version, oldestRead);
    return { table: this.at(version), changes };
  }

  /** Number of (pair, niche) cells that have a value (by this table's version). */
  get size(): number {
    if (this.upTo === Infinity) return this.pairs.size;
    let n = 0;
    for (const h of this.pairs.values()) if (h[0]! <= this.upTo) n++;
    return n;
  }

  get(i: string, j: string, niche: string, s0: number, asOf = Infinity): number {
    asOf = Math.min(asOf, this.upTo);
    const h = this.pairs.get(synergyKey(i, j, niche));
    if (!h) return s0;
    // Versions only grow and a reader lags the head by at most the tasks in flight: scan from the end.
    for (let k = h.length - 2; k >= 0; k -= 2) if (h[k]! <= asOf) return h[k + 1]!;
    return s0;
  }

  /**
   * Fold one team outcome in at pool version `version`: every pair of members moves
   * S ← (1−η)·S + η·r. Returns the changes, pairs in member order. Throws when `version` is not
   * newer than the table's last write (the table would stop being readable as of a version).
   * `oldestRead`: no reader will ask for a version older than this (the committing task's start:
   * tasks commit in stream order, so every task still in flight started at or after it); each
   * written pair then keeps its latest value as of it and the newer ones, and forgets the rest.
   */
  apply(members: readonly string[], niche: string, reward: number, eta: number, s0: number, version: number, oldestRead = -Infinity): SynergyChange[] {
    const changes: SynergyChange[] = [];
    for (let x = 0; x < members.length; x++) {
      for (let y = x + 1; y < members.length; y++) {
        const a = members[x]!;
        const b = members[y]!;
        const key = synergyKey(a, b, niche);
        const value = (1 - eta) * this.at(Infinity).get(a, b, niche, s0) + eta * reward;
        const h = this.pairs.get(key);
        const last = h ? h.length - 2 : -2;
        if (h && h[last]! > version) throw new RangeError(`synergy: version ${version} is older than the pair's last write ${h[last]}`);
        if (h && h[last] === version) h[last + 1] = value;
        else if (!h) this.pairs.set(key, [version, value]);
        else {
          let from = 0;
          for (let k = last; k > 0; k -= 2) if (h[k]! <= oldestRead) { from = k; break; }
          // A new array of exactly the kept length (a pushed-to array reserves room it never uses).
          this.pairs.set(key, (from === 0 ? h : h.slice(from)).concat(version, value));
        }
        changes.push({ a, b, niche, value });
      }
    }
    this.forgetRetired(oldestRead);
    return changes;
  }

  /** Drop the cells of agents retired before `oldestRead` (no task that may read them is in flight). */
  private forgetRetired(oldestRead: number): void {
    const gone = new Set<string>();
    for (let k = this.retired.length - 1; k >= 0; k--) {
      if (this.retired[k]!.at >= oldestRead) continue;
      gone.add(this.retired[k]!.id);
      this.retired.splice(k, 1);
    }
    if (gone.size === 0) return;
    for (const key of this.pairs.keys()) {
      const bar = key.indexOf('|');
      const a = key.slice(0, bar);
      const b = key.slice(bar + 1, key.indexOf('|', bar + 1));
      if (gone.has(a) || gone.has(b)) this.pairs.delete(key);
    }
  }
}

/** S[i][j][n] as of `asOf` (default: latest), or `s0` for a pair that never served together on the niche. */
export function synergyOf(table: SynergyReader, i: string, j: string, niche: string, s0: number, asOf?: number): number {
  return table.get(i, j, niche, s0, asOf);
}
