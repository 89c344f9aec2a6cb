/** One observed reward. */
export interface HistoryEntry {
  readonly niche: string;
  readonly reward: number;
  readonly poolVersion: number;
}

/**
 * An agent's rewards in the order observed: a persistent append-only log. `with` returns a new
 * version and leaves this one as it was, so a history held in an old snapshot never grows.
 * Versions share one buffer and each sees the entries before its own length; appending to a
 * version that is not the newest copies it first (copy on write), so appending stays O(1) in a run
 * (a fresh array per observation made a long run quadratic).
 */
export class RewardHistory implements Iterable<HistoryEntry> {
  private constructor(private readonly buffer: HistoryEntry[], readonly length: number) {}

  /** An empty history. */
  static empty(): RewardHistory {
    return new RewardHistory([], 0);
  }

  /** A history holding `entries` in order (copied). */
  static of(entries: Iterable<HistoryEntry>): RewardHistory {
    const buffer = [...entries];
    return new RewardHistory(buffer, buffer.length);
  }

  /** A new version with `entry` appended; this one is unchanged. */
  with(entry: HistoryEntry): RewardHistory {
    const buffer = this.buffer.length === this.length ? this.buffer : this.buffer.slice(0, this.length);
    buffer.push(entry);
    return new RewardHistory(buffer, this.length + 1);
  }

  /** The entry at `index` (negative counts from the end), or undefined. */
  at(index: number): HistoryEntry | undefined {
    const i = index < 0 ? this.length + index : index;
    return i >= 0 && i < this.length ? this.buffer[i] : undefined;
  }

  /** Entries from `start` to `end` (Array.prototype.slice's rules), as a new array. */
  slice(start?: number, end?: number): HistoryEntry[] {
    return this.toArray().slice(start, end);
  }

  /** Each entry mapped, in order. */
  map<T>(f: (entry: HistoryEntry, index: number) => T): T[] {
    return this.toArray().map(f);
  }

  /** The entries as a new array. */
  toArray(): HistoryEntry[] {
    return this.buffer.slice(0, this.length);
  }

  /** The entries as an array, for JSON. */
  toJSON(): HistoryEntry[] {
    return this.toArray();
  }

  *[Symbol.iterator](): Iterator<HistoryEntry> {
    for (let i = 0; i < this.length; i++) yield this.buffer[i]!;
  }
}
