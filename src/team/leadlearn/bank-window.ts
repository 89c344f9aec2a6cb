import { VectorIndex, type IndexFilter } from '../../store/vector-index';

/** What a window holds: a record with a niche and a retrieval key. */
interface Windowed { readonly niche: string; readonly key: Float32Array }

/**
 * The leadership bank's records as a bounded candidate set per niche: each niche keeps its latest
 * `window` records (past that, its oldest quarter is dropped, oldest first), so a query scores at
 * most `window` records per niche however long the stream. A query scores every niche's records
 * (the niche's embedding dominates a key, so another niche's records come in only when this one
 * has few) and returns the same order one exact scan over them all would: most similar first, ties
 * in the order added. Until a niche passes its window this is the bank as it always was.
 */
export class BankWindow<T extends Windowed> {
  private readonly niches = new Map<string, VectorIndex<T>>();
  /** Each held record's place in the order added (ties break on it). */
  private readonly seq = new WeakMap<T, number>();
  private added = 0;

  /**
   * `head`: the length of the head a niche's keys share (`VectorIndexOptions.head`; 0: none);
   * `stamp`: a number per record that searches may bound (`VectorIndexOptions.stamp`).
   */
  constructor(readonly dim: number, readonly window: number, readonly head = 0, private readonly stamp?: (item: T) => number) {
    if (!(window >= 1)) throw new RangeError(`BankWindow: window must be at least 1, got ${window}`);
  }

  /** Records held (at most `window` per niche). */
  get size(): number {
    let n = 0;
    for (const index of this.niches.values()) n += index.size;
    return n;
  }

  /** Add a record; returns the records its niche dropped to stay within the window (oldest first). */
  add(item: T): T[] {
    let index = this.niches.get(item.niche);
    if (!index) this.niches.set(item.niche, index = this.newIndex());
    this.seq.set(item, this.added++);
    index.add(item);
    if (index.size <= this.window) return [];
    const held = index.all();
    const dropped = held.slice(0, Math.max(1, Math.floor(held.length / 4)));
    const kept = this.newIndex();
    for (const e of held.slice(dropped.length)) kept.add(e);
    this.niches.set(item.niche, kept);
    return [...dropped];
  }

  private newIndex(): VectorIndex<T> {
    return new VectorIndex<T>(this.dim, { head: this.head, stamp: this.stamp });
  }

  /** The `k` held records nearest `query` among those `filter` admits, most similar first, ties in the order added. */
  search(query: Float32Array, k: number, filter: IndexFilter<T>): { item: T; sim: number }[] {
    const found: { item: T; sim: number }[] = [];
    for (const index of this.niches.values()) found.push(...index.search(query, k, filter));
    return found.sort((a, b) => b.sim - a.sim || this.seq.get(a.item)! - this.seq.get(b.item)!).slice(0, Math.max(0, Math.floor(k)));
  }

  /** Every held record in the order added. */
  all(): T[] {
    return [...this.niches.values()].flatMap((index) => index.all()).sort((a, b) => this.seq.get(a)! - this.seq.get(b)!);
  }
}
