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
 * Below this many items a search is exact (a scan of every key) and no hnswlib index exists.
 * Measured by `npm run bench -- scale` (the search section, 256 dimensions): a query costs about
 * 0.5 ms exact against 0.9 ms through hnswlib at 256 items, 1.7 against 1.1 at 1,024 and 3.9
 * against 1.1 at 2,048; but hnswlib also pays about 0.7-0.9 ms per item to build (efConstruction
 * 200 made `add` the top of the profile), and a bucket is searched about as often as it grows
 * (each task an agent works adds to the bucket it searched). Counting both, exact is cheaper up
 * to about 2,000 items, and it costs no memory (an hnswlib index allocates about 2.5 MiB of locks
 * whatever its size).
 */
export const EXACT_SEARCH_LIMIT = 2048;

/** The tails of an index without a head (none): one empty array shared by every such index (an archive has one per bucket). */
const NO_TAILS = new Float32Array(0);

/** Options of a `VectorIndex`. */
export interface VectorIndexOptions<T = never> {
  /** Slots an hnswlib index starts with once built; it doubles when full. Default 64. */
  readonly initialCapacity?: number;
  /** Item count from which searches go through hnswlib instead of an exact scan (default `EXACT_SEARCH_LIMIT`). */
  readonly exactLimit?: number;
  /**
   * Length of a head many keys share, bit for bit (default 0: none). An item whose key begins with
   * the same `head` components as the item before it shares that item's partial dot product with
   * a query: an exact search sums the head once per run of such items, then each item's tail, in
   * the same order as the full sum (the same scores, bit for bit). The leadership bank's keys are
   * a niche's embedding followed by three numbers, so a niche's records score in 3 steps, not 259.
   */
  readonly head?: number;
  /**
   * A number per item, read once when it is added (the leadership bank's commit version): a search
   * may then admit items by an upper bound on it (`{ upTo }`) without reading the items themselves.
   */
  readonly stamp?: (item: T) => number;
}

/**
 * Which items a search admits: a predicate over each item, or `{ upTo }`, every item whose
 * `stamp` (VectorIndexOptions) is at most `upTo`.
 */
export type IndexFilter<T> = ((item: T) => boolean) | { readonly upTo: number };

/** The sum of squares of a key, summed as `cosine` sums it (so scores here equal `cosine`'s bit for bit). */
function sumSquares(v: Float32Array): number {
  let s = 0;
  for (let i = 0; i < v.length; i++) s += (v[i] as number) * (v[i] as number);
  return s;
}

/** Whether two keys agree bit for bit on their first `head` components (+0 and −0 differ, NaN equals NaN). */
function sameHead(a: Float32Array, b: Float32Array, head: number): boolean {
  for (let i = 0; i < head; i++) if (!Object.is(a[i], b[i])) return false;
  return true;
}

/**
 * A growing cosine-similarity index over items that carry a `key` embedding.
 * Below `exactLimit` items a search scans every key (exact); from there on it goes through an
 * hnswlib-node index, built on first need from the items in insertion order (the same graph as
 * adding them one by one), then kept up to date; `release()` drops it until it is needed again.
 * Contract: no capacity limit; results are deterministic for the same sequence of `add` calls —
 * most similar first, ties in insertion order; items are never removed.
 */
export class VectorIndex<T extends { readonly key: Float32Array }> {
  private readonly items: T[];
  /** Sum of squares of each item's key, by insertion order. */
  private readonly norms: number[];
  private index: HierarchicalNSW | null = null;
  private readonly initialCapacity: number;
  private readonly exactLimit: number;
  private readonly head: number;
  /** Each item's head group (see `VectorIndexOptions.head`), by insertion order; empty when `head` is 0. */
  private readonly groups: number[] = [];
  /** The first key of each head group. */
  private readonly groupKeys: Float32Array[] = [];
  /**
   * With a head: every item's key past the head, one after another (`dim − head` numbers an item).
   * A search reads these, not the keys: each key is its own buffer somewhere in the heap, and a
   * scan of a thousand of them between other work missed the cache at every one (the leadership
   * bank's scan was a quarter of a 256-agent run's CPU at 5,000 tasks).
   */
  private tails = NO_TAILS;
  /** Each item's stamp (VectorIndexOptions.stamp), by insertion order; empty without one. */
  private readonly stamps: number[] = [];
  private readonly stamp: ((item: T) => number) | undefined;

  constructor(readonly dim: number, opts: VectorIndexOptions<T> = {}) {
    if (!Number.isInteger(dim) || dim <= 0) throw new RangeError(`VectorIndex: dim must be a positive integer, got ${dim}`);
    this.initialCapacity = opts.initialCapacity ?? 64;
    this.exactLimit = opts.exactLimit ?? EXACT_SEARCH_LIMIT;
    const head = opts.head ?? 0;
    if (!Number.isInteger(head) || head < 0 || head > dim) throw new RangeError(`VectorIndex: head must be an integer from 0 to dim (${dim}), got ${head}`);
    this.head = head;
    this.stamp = opts.stamp;
    this.items = [];
    this.norms = [];
  }

  /** Number of items. */
  get size(): number {
    return this.items.length;
  }

  /** Whether an hnswlib index is held now (diagnostics and tests). */
  get indexed(): boolean {
    return this.index !== null;
  }

  /** Items in insertion order (the array itself; do not mutate). */
  all(): readonly T[] {
    return this.items;
  }

  /** Add an item; throws RangeError on a key of the wrong length. */
  add(item: T): void {
    if (item.key.length !== this.dim) throw new RangeError(`VectorIndex.add: key length ${item.key.length} does not match dim ${this.dim}`);
    if (this.index) this.addPoint(this.index, item.key, this.items.length);
    this.items.push(item);
    this.norms.push(sumSquares(item.key));
    if (this.stamp) this.stamps.push(this.stamp(item));
    if (this.head > 0) {
      const tail = this.dim - this.head;
      const at = (this.items.length - 1) * tail;
      if (at + tail > this.tails.length) {
        const grown = new Float32Array(Math.max(64 * tail, this.tails.length * 2));
        grown.set(this.tails);
        this.tails = grown;
      }
      this.tails.set(item.key.subarray(this.head), at);
      const last = this.groupKeys.length - 1;
      if (last >= 0 && sameHead(this.groupKeys[last]!, item.key, this.head)) this.groups.push(last);
      else {
        this.groups.push(this.groupKeys.length);
        this.groupKeys.push(item.key);
      }
    }
  }

  /** Drop the hnswlib index, if any (its memory goes); the next search that needs it rebuilds it. */
  release(): void {
    this.index = null;
  }

  /**
   * The `k` items most similar to `query` among those `accept` admits (all by default), with their
   * cosine similarity. The filter lets readers see the index as of an earlier version.
   */
  search(query: Float32Array, k: number, filter: IndexFilter<T> = () => true): { item: T; sim: number }[] {
    if (query.length !== this.dim) throw new RangeError(`VectorIndex.search: query length ${query.length} does not match dim ${this.dim}`);
    const n = this.items.length;
    const want = Math.min(Math.max(0, Math.floor(k)), n);
    if (want === 0) return [];
    const admits = this.admits(filter);
    // A zero query is equally far from everything; take the oldest.
    if (query.every((x) => x === 0)) return this.items.filter((_, label) => admits(label)).slice(0, want).map((item) => ({ item, sim: 0 }));
    return n < this.exactLimit ? this.exact(query, want, admits) : this.approximate(query, want, admits);
  }

  /** The filter as a test of an item's label. */
  private admits(filter: IndexFilter<T>): (label: number) => boolean {
    if (typeof filter === 'function') return (label) => filter(this.items[label]!);
    if (!this.stamp) throw new Error('VectorIndex.search: { upTo } needs an index made with a stamp');
    const { upTo } = filter;
    const stamps = this.stamps;
    return (label) => stamps[label]! <= upTo;
  }

  /** Every admitted item scored, the best `want` kept (most similar first, ties in insertion order). */
  private exact(query: Float32Array, want: number, admits: (label: number) => boolean): { item: T; sim: number }[] {
    const qq = sumSquares(query);
    const dim = this.dim;
    const head = this.head;
    // Each head group's partial sum over the head, computed when first needed (NaN: not yet).
    const partial = head > 0 ? new Float64Array(this.groupKeys.length).fill(Number.NaN) : null;
    const best: { label: number; sim: number }[] = [];
    const tails = this.tails;
    const tail = dim - head;
    for (let label = 0; label < this.items.length; label++) {
      if (!admits(label)) continue;
      let dot = 0;
      if (partial) {
        const g = this.groups[label]!;
        let p = partial[g]!;
        if (Number.isNaN(p)) {
          const first = this.groupKeys[g]!;
          p = 0;
          for (let i = 0; i < head; i++) p += (query[i] as number) * (first[i] as number);
          partial[g] = p;
        }
        // The tail's terms in the key's order, from the contiguous copy: the same sum as the key's.
        dot = p;
        const at = label * tail;
        for (let i = 0; i < tail; i++) dot += (query[head + i] as number) * (tails[at + i] as number);
      } else {
        const key = this.items[label]!.key;
        for (let i = 0; i < dim; i++) dot += (query[i] as number) * (key[i] as number);
      }
      const nn = this.norms[label]!;
      const sim = nn === 0 ? 0 : dot / Math.sqrt(qq * nn);
      // Kept sorted; a later label never displaces an equal score (insertion order breaks ties).
      if (best.length === want && sim <= best[want - 1]!.sim) continue;
      let at = best.length;
      while (at > 0 && best[at - 1]!.sim < sim) at--;
      best.splice(at, 0, { label, sim });
      if (best.length > want) best.pop();
    }
    return best.map(({ label, sim }) => ({ item: this.items[label]!, sim }));
  }

  private approximate(query: Float32Array, want: number, admits: (label: number) => boolean): { item: T; sim: number }[] {
    const index = this.index ?? this.build();
    const n = this.items.length;
    const q = Array.from(query);
    // hnswlib rejects k above its count and may return fewer than asked, so clamp and fetch a
    // margin; widen the fetch until enough admitted items are found or everything was fetched.
    for (let fetch = Math.min(want + TIE_SLACK, n); ; fetch = Math.min(fetch * 2, n)) {
      index.setEf(Math.max(HNSW_EF_SEARCH, fetch));
      const labels = index.searchKnn(q, fetch).neighbors.filter(admits);
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

  /** The hnswlib index over every item, added in insertion order. */
  private build(): HierarchicalNSW {
    const index = new hnswlib.HierarchicalNSW('cosine', this.dim);
    index.initIndex({ maxElements: Math.max(this.initialCapacity, this.items.length), m: HNSW_M, efConstruction: HNSW_EF_CONSTRUCTION, randomSeed: HNSW_SEED });
    this.items.forEach((item, label) => this.addPoint(index, item.key, label));
    this.index = index;
    return index;
  }

  private addPoint(index: HierarchicalNSW, key: Float32Array, label: number): void {
    if (index.getCurrentCount() >= index.getMaxElements()) index.resizeIndex(index.getMaxElements() * 2);
    index.addPoint(Array.from(key), label);
  }
}
