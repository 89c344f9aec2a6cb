/** One observed reward. */
export interface HistoryEntry {
  readonly niche: string;
  readonly reward: number;
  readonly poolVersion: number;
}

/**
 * An agent's rewards in the order observed: a persistent append-only log compacted into running
 * aggregates (`length`, `rewardSum`) plus a bounded window of the latest entries. `with` returns a
 * new version and leaves this one as it was, so a history held in an old snapshot never grows.
 * Versions share one buffer and each sees the entries before its own length; appending to a
 * version that is not the newest copies its window first (copy on write), so appending stays O(1)
 * in a run (a fresh array per observation made a long run quadratic).
 *
 * Window: every version holds at least its last `window` entries (`population.bounds.historyWindow`;
 * the readers, prune and merge, need its length and its last `prune.window` entries). The buffer
 * is cut back to `window` entries when it reaches twice that (amortized O(1)); the entries read
 * (`at`, `slice`, `map`, `toArray`, iteration) are the ones held, the latest last.
 */
export class RewardHistory implements Iterable<HistoryEntry> {
  private constructor(
    private readonly buffer: HistoryEntry[],
    /** Observations ever made (the window's entries are the last `held` of them). */
    readonly length: number,
    /** Entries of `buffer` this version sees (its first `held`). */
    private readonly held: number,
    /** Sum of every reward ever observed. */
    readonly rewardSum: number,
    /** Entries always held (Infinity: every one). */
    readonly window: number,
  ) {}

  /** An empty history holding at least its last `window` entries (default: all). */
  static empty(window = Infinity): RewardHistory {
    if (!(window >= 1)) throw new RangeError(`RewardHistory: window must be at least 1, got ${window}`);
    return new RewardHistory([], 0, 0, 0, window);
  }

  /** A history holding `entries` in order (copied), every one of them held. */
  static of(entries: Iterable<HistoryEntry>): RewardHistory {
    const buffer = [...entries];
    return new RewardHistory(buffer, buffer.length, buffer.length, buffer.reduce((s, e) => s + e.reward, 0), Infinity);
  }

  /** A new version with `entry` appended; this one is unchanged. */
  with(entry: HistoryEntry): RewardHistory {
    let buffer = this.buffer.length === this.held ? this.buffer : this.buffer.slice(0, this.held);
    let held = this.held;
    if (held >= 2 * this.window) {
      // Cut back to the window: a fresh buffer, so versions holding the old one keep their entries.
      buffer = buffer.slice(held - this.window + 1);
      held = this.window - 1;
    }
    buffer.push(entry);
    return new RewardHistory(buffer, this.length + 1, held + 1, this.rewardSum + entry.reward, this.window);
  }

  /** Entries held (at least `min(length, window)`). */
  get heldCount(): number {
    return this.held;
  }

  /** The held entry at `index` (negative counts from the end), or undefined. */
  at(index: number): HistoryEntry | undefined {
    const i = index < 0 ? this.held + index : index;
    return i >= 0 && i < this.held ? this.buffer[i] : undefined;
  }

  /** Held entries from `start` to `end` (Array.prototype.slice's rules), as a new array. */
  slice(start?: number, end?: number): HistoryEntry[] {
    return this.toArray().slice(start, end);
  }

  /** Each held entry mapped, in order. */
  map<T>(f: (entry: HistoryEntry, index: number) => T): T[] {
    return this.toArray().map(f);
  }

  /** The held entries as a new array. */
  toArray(): HistoryEntry[] {
    return this.buffer.slice(0, this.held);
  }

  /** The held entries as an array, for JSON. */
  toJSON(): HistoryEntry[] {
    return this.toArray();
  }

  *[Symbol.iterator](): Iterator<HistoryEntry> {
    for (let i = 0; i < this.held; i++) yield this.buffer[i]!;
  }
}
