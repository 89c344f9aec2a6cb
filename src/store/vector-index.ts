// hnswlib-node is CommonJS with no statically detectable named exports, so take the default.
import hnswlib from 'hnswlib-node';
import type { HierarchicalNSW } from 'hnswlib-node';
import { cosine } from '../core/vector';

// Fixed so that the same insertion order always builds the same graph and gives the same results.
const HNSW_SEED = 100;
const HNSW_M = 16;
const HNSW_EF_CONSTRUCTION = 200;
// Search breadth: indexes here are small (hundreds to a few thousand items), so a wide beam
// buys near-exact recall cheaply.
const HNSW_EF_SEARCH = 200;
// Extra candidates fetched past k, so that ties at the cut are broken by insertion order.
const TIE_SLACK = 8;

/**
 * A growing cosine-similarity index over items that carry a `key` embedding (hnswlib-node).
 * Contract: no capacity limit (the index doubles when full); results are deterministic for the
 * same sequence of `add` calls — most similar first, ties in insertion order; items are never removed.
 */
export class VectorIndex<T extends { readonly key: Float32Array }> {
  private readonly items: T[] = [];
  private index: HierarchicalNSW | null = null;

  constructor(readonly dim: number, private readonly initialCapacity = 64) {
    if (!Number.isInteger(dim) || dim <= 0) throw new RangeError(`VectorIndex: dim must be a positive integer, got ${dim}`);
  }

  /** Number of items. */
  get size(): number {
    return this.items.length;
  }

  /** Items in insertion order (the array itself; do not mutate). */
  all(): readonly T[] {
    return this.items;
  }

  /** Add an item; throws RangeError on a key of the wrong length. */
  add(item: T): void {
    if (item.key.length !== this.dim) throw new RangeError(`VectorIndex.add: key length ${item.key.length} does not match dim ${this.dim}`);
    if (!this.index) {
      // Created on first use: most buckets stay empty.
      this.index = new hnswlib.HierarchicalNSW('cosine', this.dim);
      this.index.initIndex({ maxElements: this.initialCapacity, m: HNSW_M, efConstruction: HNSW_EF_CONSTRUCTION, randomSeed: HNSW_SEED });
    }
    if (this.index.getCurrentCount() >= this.index.getMaxElements()) this.index.resizeIndex(this.index.getMaxElements() * 2);
    this.index.addPoint(Array.from(item.key), this.items.length);
    this.items.push(item);
  }

  /**
   * The `k` items most similar to `query` among those `accept` admits (all by default), with their
   * cosine similarity. The filter lets readers see the index as of an earlier version.
   */
  search(query: Float32Array, k: number, accept: (item: T) => boolean = () => true): { item: T; sim: number }[] {
    if (query.length !== this.dim) throw new RangeError(`VectorIndex.search: query length ${query.length} does not match dim ${this.dim}`);
    const n = this.items.length;
    const want = Math.min(Math.max(0, Math.floor(k)), n);
    if (!this.index || want === 0) return [];
    // A zero query is equally far from everything; take the oldest rather than hnsw's arbitrary pick.
    if (query.every((x) => x === 0)) return this.items.filter(accept).slice(0, want).map((item) => ({ item, sim: 0 }));
    const q = Array.from(query);
    // hnswlib rejects k above its count and may return fewer than asked, so clamp and fetch a
    // margin; widen the fetch until enough admitted items are found or everything was fetched.
    for (let fetch = Math.min(want + TIE_SLACK, n); ; fetch = Math.min(fetch * 2, n)) {
      this.index.setEf(Math.max(HNSW_EF_SEARCH, fetch));
      const labels = this.index.searchKnn(q, fetch).neighbors.filter((label) => accept(this.items[label]!));
      if (labels.length >= want + Math.min(TIE_SLACK, n - want) || fetch === n) {
        // Re-score exactly: hnsw distances are float32 and its order among equals is not insertion order.
        return labels
          .map((label) => ({ label, sim: cosine(query, this.items[label]!.key) }))
          .sort((a, b) => b.sim - a.sim || a.label - b.label)
          .slice(0, want)
          .map(({ label, sim }) => ({ item: this.items[label]!, sim }));
      }
    }
  }
}
