import { collapseSpaces, isAscii } from '../core/text';
import { VectorIndex } from '../store/vector-index';

/** How general an archived insight is, from one task's detail up to a cross-niche meta-insight. */
export type ArchiveLevel = 'task-local' | 'subdomain' | 'cross-domain' | 'lesson' | 'meta';

/** Where an archived insight came from: the agent's own reflection, CoDream, or a parent. */
export type ArchiveSource = 'reflection' | 'codream' | 'inherited';

/** One archived insight. `niche: null` means it lives in the meta pool. `key` is its embedding. */
export interface ArchiveEntry {
  id: string;
  text: string;
  niche: string | null;
  level: ArchiveLevel;
  source: ArchiveSource;
  /** Task whose reflection produced it; null for CoDream or inherited entries without one. */
  taskId: string | null;
  /** Knowledge-pool version current when it was written; opaque to the archive, kept for provenance. */
  poolVersion: number;
  /** Embedding of `text`; its length must equal the archive's `dim`. */
  key: Float32Array;
  /** Pool version at which the entry was committed to this archive (set by the owning agent). */
  committedAt?: number;
}

/** An entry in saved form: the key as a plain number array. */
export type ArchiveEntryJSON = Omit<ArchiveEntry, 'key'> & { key: number[] };

/** The saved form of an archive (`Archive.toJSON`). */
export interface ArchiveJSON {
  schemaVersion: 1;
  dim: number;
  entries: ArchiveEntryJSON[];
}

/** Options for `new Archive`. */
export interface ArchiveOptions {
  /** Embedding length every key must have. */
  dim: number;
  /** Slots an index starts with; it doubles whenever full. Default 64. */
  initialCapacity?: number;
  /**
   * Most entries a niche bucket holds: adding to a full bucket forgets its oldest entry, which
   * retrieval and de-duplication no longer see (so it can be learnt again). Default unbounded
   * (a run sets it from `bounds.archiveBucket` and `memory.capacity`, docs/running.md).
   */
  capacity?: number;
  /** Most entries the meta pool holds, forgotten the same way. Default unbounded (a run sets `bounds.metaPool`). */
  metaCapacity?: number;
}

/** What `Archive.retrieve` returns: niche lessons and meta-insights, each most similar first. */
export interface Retrieval {
  lessons: ArchiveEntry[];
  meta: ArchiveEntry[];
}

/** Normalized form used for de-duplication: case, surrounding and repeated whitespace ignored. */
export function normalizeArchiveText(text: string): string {
  // NFKC leaves ASCII as it is: skip its full pass (and copy) for the text that is all ASCII.
  return collapseSpaces((isAscii(text) ? text : text.normalize('NFKC')).trim()).toLowerCase();
}

interface Bucket {
  index: VectorIndex<ArchiveEntry>;
  /** Normalized text to the entry's position in `order` (its latest, when a forgotten text was stored again). */
  texts: Map<string, number>;
  /** The bucket's entries in insertion order (what a capacity keeps the newest of); their positions in `order` increase. */
  members: ArchiveEntry[];
}

/** The append-only storage several archive versions share: an entry at position i is seen by every version longer than i. */
interface ArchiveStore {
  // Keyed by niche; `null` is the meta pool (Map keeps null distinct from any niche name).
  readonly buckets: Map<string | null, Bucket>;
  readonly order: ArchiveEntry[];
  /** Each stored entry's position in `order`. */
  readonly position: Map<ArchiveEntry, number>;
}

const emptyStore = (): ArchiveStore => ({ buckets: new Map(), order: [], position: new Map() });

/**
 * Keys stored by some archive, content-addressed across archives: an insight routed to many
 * agents (or inherited, or merged) is stored with one key, not one copy per archive. Stored keys
 * are never written to; `stored` maps a caller's buffer to the copy made of it (checked equal on
 * use, since a caller may reuse its buffer for other content).
 */
const storedKeys = new WeakSet<Float32Array>();
/** Entries some archive stored: added to another archive (clone, union, a copy on write), they are shared, not copied. */
const storedEntries = new WeakSet<ArchiveEntry>();
const copyOf = new WeakMap<Float32Array, Float32Array>();

function sameContent(a: Float32Array, b: Float32Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (!Object.is(a[i], b[i])) return false;
  return true;
}

/** The stored key for `key`'s content: `key` itself when an archive stored it, else one shared copy. */
function storedKey(key: Float32Array): Float32Array {
  if (storedKeys.has(key)) return key;
  const known = copyOf.get(key);
  if (known && sameContent(known, key)) return known;
  const copy = Float32Array.from(key);
  storedKeys.add(copy);
  copyOf.set(key, copy);
  return copy;
}

/**
 * An agent's private experience archive: one bucket per niche plus one meta pool, each searched by
 * cosine similarity (exactly while small, through hnswlib past `EXACT_SEARCH_LIMIT`). Grows without
 * a limit unless given a `capacity` per niche bucket and a `metaCapacity` for the meta pool: then a
 * full bucket forgets its oldest entry. Keys are shared with the archives they came from or went to
 * (clone, union, the same insight routed to several agents).
 *
 * Eviction: forgotten entries stay in the store until one of its buckets holds twice its capacity;
 * the next version to grow then starts a store of its own with only the entries it holds (the copy
 * on write below), and the old store, forgotten entries and all, is freed once no snapshot holds a
 * version that reads it. So a bounded archive holds at most twice its capacities, at a cost of one
 * copy of what it holds per capacity's worth of additions.
 *
 * Persistent: `with` and `union` return a new version and leave this one as it was, so an archive
 * held in an old snapshot never changes. Versions share one append-only store and each sees the
 * entries before its own length; appending to a version that is not the newest copies its entries
 * first (copy on write). `add` grows this object itself, for building an archive nobody holds yet.
 * Contract: results are deterministic for the same sequence of additions; within a bucket an
 * entry's normalized text is unique among the entries held; a version's entries never change once
 * it is made (what it forgot it no longer reads, whichever store holds it).
 */
export class Archive {
  /** Embedding length every key must have. */
  readonly dim: number;
  private readonly initialCapacity: number;
  /** Most entries a niche bucket holds (Infinity: unbounded). */
  readonly capacity: number;
  /** Most entries the meta pool holds (Infinity: unbounded). */
  readonly metaCapacity: number;
  private store: ArchiveStore = emptyStore();
  /** Entries this version sees: the first `length` of the store. */
  private length = 0;
  /**
   * Set on a retired agent's archive (`retired()`): its counts when it retired. Its entries are no
   * longer in memory; they are in the run's event log (`lesson.added`, `insight.routed`).
   */
  private tally: { readonly size: number; readonly byNiche: Readonly<Record<string, number>>; readonly meta: number } | null = null;

  constructor(opts: ArchiveOptions) {
    if (!Number.isInteger(opts.dim) || opts.dim <= 0) throw new RangeError(`Archive: dim must be a positive integer, got ${opts.dim}`);
    this.dim = opts.dim;
    this.initialCapacity = Math.max(1, Math.floor(opts.initialCapacity ?? 64));
    this.capacity = opts.capacity ?? Infinity;
    if (!(this.capacity >= 1)) throw new RangeError(`Archive: capacity must be at least 1, got ${opts.capacity}`);
    this.metaCapacity = opts.metaCapacity ?? Infinity;
    if (!(this.metaCapacity >= 1)) throw new RangeError(`Archive: metaCapacity must be at least 1, got ${opts.metaCapacity}`);
  }

  /** Most entries the bucket of `niche` (null: the meta pool) holds. */
  private capacityOf(niche: string | null): number {
    return niche === null ? this.metaCapacity : this.capacity;
  }

  /** Whether some bucket forgets. */
  private get bounded(): boolean {
    return this.capacity !== Infinity || this.metaCapacity !== Infinity;
  }

  /** Rebuild an archive from `toJSON` output, re-adding entries in their saved order. */
  static fromJSON(data: ArchiveJSON, opts: Omit<ArchiveOptions, 'dim'> = {}): Archive {
    if (data?.schemaVersion !== 1) {
      throw new Error(`Archive.fromJSON: unsupported schemaVersion ${String(data?.schemaVersion)} (expected 1)`);
    }
    const archive = new Archive({ ...opts, dim: data.dim });
    for (const e of data.entries) archive.add({ ...e, key: Float32Array.from(e.key) });
    return archive;
  }

  /**
   * Add an entry to this archive object unless its normalized text is already in the same bucket;
   * returns whether it was added. Throws on a key of the wrong length. An archive a snapshot may
   * hold is extended with `with` instead.
   */
  add(entry: ArchiveEntry): boolean {
    this.refuseRetired('add');
    if (entry.key.length !== this.dim) {
      throw new RangeError(`Archive.add: key length ${entry.key.length} does not match dim ${this.dim}`);
    }
    if (this.has(entry.text, entry.niche)) return false;
    // Another version appended past this one, or the bucket's store holds twice what the bucket
    // may (its forgotten entries as many as its held ones): this one gets a store of its own, with
    // only what it holds, before it grows (eviction; the old store is freed with its last reader).
    const full = (this.store.buckets.get(entry.niche)?.members.length ?? 0) >= 2 * this.capacityOf(entry.niche);
    if (this.store.order.length !== this.length || full) {
      this.store = this.copyStore();
      this.length = this.store.order.length;
    }
    const bucket = this.bucket(entry.niche);
    // Stored with a copy of the key (shared by every archive holding the same buffer's content), so
    // a caller reusing its buffer cannot change what was indexed.
    // An entry some archive already stored is shared as it is (never written to once stored).
    // A forgotten entry stored again is another object, so each occurrence keeps its own position.
    const stored: ArchiveEntry = storedEntries.has(entry) && !this.store.position.has(entry) ? entry : { ...entry, key: storedKey(entry.key) };
    storedEntries.add(stored);
    bucket.index.add(stored);
    bucket.members.push(stored);
    bucket.texts.set(normalizeArchiveText(entry.text), this.length);
    this.store.position.set(stored, this.length);
    this.store.order.push(stored);
    this.length++;
    return true;
  }

  /** A new version with `entry` added (this one when its normalized text is already in the bucket); this version is unchanged. Throws on a key of the wrong length. */
  with(entry: ArchiveEntry): Archive {
    if (entry.key.length !== this.dim) {
      throw new RangeError(`Archive.with: key length ${entry.key.length} does not match dim ${this.dim}`);
    }
    if (this.has(entry.text, entry.niche)) return this;
    const next = this.version();
    next.add(entry);
    return next;
  }

  /** A new version holding every entry of `other` not already present (normalized text per bucket), in `other`'s insertion order; this version is unchanged. */
  union(other: Archive): Archive {
    const next = this.version();
    for (const e of other.entries()) next.add(e);
    return next.length === this.length ? this : next;
  }

  /** Top-`k` lessons from `niche`'s bucket and top-`kMeta` from the meta pool, by cosine to `query`, most similar first, ties in insertion order; throws RangeError on a query of the wrong length. */
  retrieve(query: Float32Array, niche: string, k: number, kMeta: number, asOf = Infinity): Retrieval {
    this.refuseRetired('retrieve');
    return { lessons: this.search(niche, query, k, asOf), meta: this.search(null, query, kMeta, asOf) };
  }

  /** Total number of entries held, meta pool included (forgotten ones are not held). */
  size(): number {
    if (this.tally) return this.tally.size;
    return this.bounded ? this.entries().length : this.length;
  }

  /** Entries in the store this version reads, forgotten ones not yet evicted included (a bounded bucket: at most twice its capacity). */
  stored(): number {
    return this.store.order.length;
  }

  /** Entry count per niche bucket; the meta pool is not included (see `metaSize`). */
  sizeByNiche(): Record<string, number> {
    if (this.tally) return { ...this.tally.byNiche };
    const out: Record<string, number> = {};
    for (const [niche, n] of this.bucketSizes()) if (niche !== null) out[niche] = n;
    return out;
  }

  /** Number of entries in the meta pool. */
  metaSize(): number {
    if (this.tally) return this.tally.meta;
    return this.bucketSizes().get(null) ?? 0;
  }

  /** All entries this version holds, in insertion order (a new array; the entries themselves are shared). Forgotten ones are not held. */
  entries(): ArchiveEntry[] {
    this.refuseRetired('entries');
    const all = this.store.order.slice(0, this.length);
    if (!this.bounded) return all;
    const held = new Set([...this.store.buckets].flatMap(([niche, b]) => (this.capacityOf(niche) === Infinity ? [] : [...this.held(b, niche, Infinity)])));
    return all.filter((e) => this.capacityOf(e.niche) === Infinity || held.has(e));
  }

  /** Whether an entry with this normalized text is in the bucket for `niche` (`null` = meta pool), and not forgotten. */
  has(text: string, niche: string | null): boolean {
    return this.hasNormalized(normalizeArchiveText(text), niche);
  }

  /** `has` for a text already normalized (`normalizeArchiveText`): a delivery to many agents normalizes its text once. */
  hasNormalized(normalized: string, niche: string | null): boolean {
    this.refuseRetired('has');
    const bucket = this.store.buckets.get(niche);
    const at = bucket?.texts.get(normalized);
    if (at === undefined || at >= this.length) return false;
    return this.capacityOf(niche) === Infinity || this.isHeld(bucket!, niche, at);
  }

  /** A plain, JSON-serializable copy (keys as number arrays), in insertion order. */
  toJSON(): ArchiveJSON {
    return { schemaVersion: 1, dim: this.dim, entries: this.entries().map((e) => ({ ...e, key: Array.from(e.key) })) };
  }

  /**
   * A copy for a forked agent: another version of this one, so later additions to either do not
   * affect the other. It costs nothing until one of them grows; then the one behind copies its
   * membership, sharing the entries and keys (never written to once stored).
   */
  clone(): Archive {
    return this.version();
  }

  /**
   * Drop every search structure of this archive's store (a retired agent's); entries stay, and a
   * later search rebuilds what it needs. Versions sharing the store lose only that cache.
   */
  release(): void {
    for (const b of this.store.buckets.values()) b.index.release();
  }

  /**
   * What a retired agent keeps of its archive in memory: its counts (`size`, `sizeByNiche`,
   * `metaSize`, what the summary reads), not its entries, so that a stream that keeps pruning and
   * spawning does not keep every archive it ever grew. Versions taken before (tasks in flight)
   * keep theirs until they are dropped. Reading entries of the result throws.
   */
  retired(): Archive {
    if (this.tally) return this;
    const out = new Archive(this.options());
    out.tally = { size: this.size(), byNiche: this.sizeByNiche(), meta: this.metaSize() };
    return out;
  }

  /** Whether this is a retired agent's archive (`retired()`): counts only. */
  get isRetired(): boolean {
    return this.tally !== null;
  }

  private refuseRetired(what: string): void {
    if (this.tally) throw new Error(`Archive.${what}: a retired agent's archive keeps only its counts in memory; its entries are in the run's event log`);
  }

  /** Add every entry of `other` not already present (normalized text per bucket), in `other`'s insertion order; returns how many were added. */
  mergeFrom(other: Archive): number {
    let added = 0;
    for (const e of other.entries()) if (this.add(e)) added++;
    return added;
  }

  /** Another object for this same version, sharing the store: it grows without changing this one. */
  private version(): Archive {
    this.refuseRetired('version');
    const next = new Archive(this.options());
    next.store = this.store;
    next.length = this.length;
    return next;
  }

  private copyStore(): ArchiveStore {
    const copy = new Archive(this.options());
    for (const e of this.entries()) copy.add(e);
    return copy.store;
  }

  private options(): ArchiveOptions {
    return { dim: this.dim, initialCapacity: this.initialCapacity, capacity: this.capacity, metaCapacity: this.metaCapacity };
  }

  private bucketSizes(): Map<string | null, number> {
    const out = new Map<string | null, number>();
    if (this.length === this.store.order.length && !this.bounded) {
      for (const [niche, bucket] of this.store.buckets) out.set(niche, bucket.index.size);
      return out;
    }
    for (const e of this.entries()) out.set(e.niche, (out.get(e.niche) ?? 0) + 1);
    return out;
  }

  private bucket(niche: string | null): Bucket {
    let bucket = this.store.buckets.get(niche);
    if (!bucket) {
      bucket = { index: new VectorIndex<ArchiveEntry>(this.dim, { initialCapacity: this.initialCapacity }), texts: new Map(), members: [] };
      this.store.buckets.set(niche, bucket);
    }
    return bucket;
  }

  private search(niche: string | null, query: Float32Array, k: number, asOf: number): ArchiveEntry[] {
    if (query.length !== this.dim) throw new RangeError(`Archive.retrieve: query length ${query.length} does not match dim ${this.dim}`);
    const bucket = this.store.buckets.get(niche);
    if (!bucket) return [];
    // Entries committed after `asOf` are invisible: a task in flight reads the archive as it was
    // when it started. Entries a later version appended are not this version's.
    const latest = this.length === this.store.order.length;
    const { position } = this.store;
    const inVersion = (e: ArchiveEntry) => position.get(e)! < this.length;
    const accept = asOf === Infinity
      ? (latest ? undefined : inVersion)
      : (latest ? (e: ArchiveEntry) => (e.committedAt ?? 0) <= asOf : (e: ArchiveEntry) => inVersion(e) && (e.committedAt ?? 0) <= asOf);
    if (this.capacityOf(niche) !== Infinity) {
      const held = this.held(bucket, niche, asOf);
      return bucket.index.search(query, k, (e) => held.has(e)).map((r) => r.item);
    }
    return bucket.index.search(query, k, accept).map((r) => r.item);
  }

  /**
   * The entries of a bounded bucket this version holds as of pool version `asOf`: of those stored
   * before this version's length and committed by `asOf`, the newest `capacityOf(niche)` (FIFO forgetting).
   */
  private held(bucket: Bucket, niche: string | null, asOf: number): Set<ArchiveEntry> {
    const { position } = this.store;
    const out: ArchiveEntry[] = [];
    const capacity = this.capacityOf(niche);
    for (let i = bucket.members.length - 1; i >= 0 && out.length < capacity; i--) {
      const e = bucket.members[i]!;
      if (position.get(e)! < this.length && (e.committedAt ?? 0) <= asOf) out.push(e);
    }
    return new Set(out);
  }

  /**
   * Whether the entry at store position `at` (one of `bucket`'s, before this version's length) is
   * held: fewer than the bucket's capacity of its members stored after it are in this version.
   * Members are in position order, so that is a difference of two binary searches.
   */
  private isHeld(bucket: Bucket, niche: string | null, at: number): boolean {
    return this.membersBefore(bucket, this.length) - this.membersBefore(bucket, at + 1) < this.capacityOf(niche);
  }

  /** How many of `bucket`'s members sit at store positions below `end`. */
  private membersBefore(bucket: Bucket, end: number): number {
    const { position } = this.store;
    let lo = 0;
    let hi = bucket.members.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (position.get(bucket.members[mid]!)! < end) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
