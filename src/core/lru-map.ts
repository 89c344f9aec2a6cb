/**
 * A map that holds at most `capacity` entries and forgets the least recently used one first: the
 * bounded form of the process-wide caches of pure functions (a cache must never change a result,
 * only how often it is computed). A Map iterates in insertion order, so a hit is moved to the end
 * and the first key is the one to evict.
 */
export class LruMap<K, V> {
  private readonly map = new Map<K, V>();

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`LruMap: capacity must be a positive integer, got ${capacity}`);
  }

  /** The value for `key` (now the most recently used), or undefined. */
  get(key: K): V | undefined {
    const v = this.map.get(key);
    if (v === undefined && !this.map.has(key)) return undefined;
    this.map.delete(key);
    this.map.set(key, v as V);
    return v;
  }

  /** Whether `key` is held (does not count as a use). */
  has(key: K): boolean {
    return this.map.has(key);
  }

  /** Hold `value` for `key` as the most recently used; the least recently used goes when full. */
  set(key: K, value: V): this {
    this.map.delete(key);
    this.map.set(key, value);
    if (this.map.size > this.capacity) this.map.delete(this.map.keys().next().value as K);
    return this;
  }

  delete(key: K): boolean {
    return this.map.delete(key);
  }

  /** Entries held now. */
  get size(): number {
    return this.map.size;
  }

  clear(): void {
    this.map.clear();
  }
}
