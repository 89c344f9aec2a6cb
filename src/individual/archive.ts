import { collapseSpaces } from '../core/text';
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
}

/** What `Archive.retrieve` returns: niche lessons and meta-insights, each most similar first. */
export interface Retrieval {
  lessons: ArchiveEntry[];
  meta: ArchiveEntry[];
}

/** Normalized form used for de-duplication: case, surrounding and repeated whitespace ignored. */
export function normalizeArchiveText(text: string): string {
  return collapseSpaces(text.normalize('NFKC').trim()).toLowerCase();
}

interface Bucket {
  index: VectorIndex<ArchiveEntry>;
  texts: Set<string>;
}

/**
 * Keys stored by some archive, content-addressed across archives: an insight routed to many
 * agents (or inherited, or merged) is stored with one key, not one copy per archive. Stored keys
 * are never written to; `stored` maps a caller's buffer to the copy made of it (checked equal on
 * use, since a caller may reuse its buffer for other content).
 */
const storedKeys = new WeakSet<Float32Array>();
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
 * a capacity limit. Entries and keys are shared with the archives they came from or went to
 * (clone, mergeFrom, the same insight routed to several agents).
 * Contract: results are deterministic for the same sequence of `add` calls; within a bucket an
 * entry's normalized text is unique; entries are never removed.
 */
export class Archive {
  /** Embedding length every key must have. */
  readonly dim: number;
  private readonly initialCapacity: number;
  // Keyed by niche; `null` is the meta pool (Map keeps null distinct from any niche name).
  private readonly buckets = new Map<string | null, Bucket>();
  private readonly order: ArchiveEntry[] = [];

  constructor(opts: ArchiveOptions) {
    if (!Number.isInteger(opts.dim) || opts.dim <= 0) throw new RangeError(`Archive: dim must be a positive integer, got ${opts.dim}`);
    this.dim = opts.dim;
    this.initialCapacity = Math.max(1, Math.floor(opts.initialCapacity ?? 64));
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

  /** Add an entry unless its normalized text is already in the same bucket; returns whether it was added. Throws on a key of the wrong length. */
  add(entry: ArchiveEntry): boolean {
    if (entry.key.length !== this.dim) {
      throw new RangeError(`Archive.add: key length ${entry.key.length} does not match dim ${this.dim}`);
    }
    const bucket = this.bucket(entry.niche);
    const norm = normalizeArchiveText(entry.text);
    if (bucket.texts.has(norm)) return false;
    // Stored with a copy of the key (shared by every archive holding the same buffer's content), so
    // a caller reusing its buffer cannot change what was indexed.
    const stored: ArchiveEntry = { ...entry, key: storedKey(entry.key) };
    bucket.index.add(stored);
    bucket.texts.add(norm);
    this.order.push(stored);
    return true;
  }

  /** Top-`k` lessons from `niche`'s bucket and top-`kMeta` from the meta pool, by cosine to `query`, most similar first, ties in insertion order; throws RangeError on a query of the wrong length. */
  retrieve(query: Float32Array, niche: string, k: number, kMeta: number, asOf = Infinity): Retrieval {
    return { lessons: this.search(this.buckets.get(niche), query, k, asOf), meta: this.search(this.buckets.get(null), query, kMeta, asOf) };
  }

  /** Total number of entries, meta pool included. */
  size(): number {
    return this.order.length;
  }

  /** Entry count per niche bucket; the meta pool is not included (see `metaSize`). */
  sizeByNiche(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const [niche, bucket] of this.buckets) if (niche !== null) out[niche] = bucket.index.size;
    return out;
  }

  /** Number of entries in the meta pool. */
  metaSize(): number {
    return this.buckets.get(null)?.index.size ?? 0;
  }

  /** All entries in insertion order (a new array; the entries themselves are shared). */
  entries(): ArchiveEntry[] {
    return this.order.slice();
  }

  /** Whether an entry with this normalized text is in the bucket for `niche` (`null` = meta pool). */
  has(text: string, niche: string | null): boolean {
    return this.buckets.get(niche)?.texts.has(normalizeArchiveText(text)) ?? false;
  }

  /** A plain, JSON-serializable copy (keys as number arrays), in insertion order. */
  toJSON(): ArchiveJSON {
    return { schemaVersion: 1, dim: this.dim, entries: this.order.map((e) => ({ ...e, key: Array.from(e.key) })) };
  }

  /**
   * A copy for a forked agent: it shares this archive's entries (never written to once stored) and
   * holds its own membership lists, so later adds to either do not affect the other. Search
   * structures are not copied; each builds its own when it needs one.
   */
  clone(): Archive {
    const copy = new Archive({ dim: this.dim, initialCapacity: this.initialCapacity });
    for (const [niche, b] of this.buckets) copy.buckets.set(niche, { index: b.index.fork(), texts: new Set(b.texts) });
    copy.order.push(...this.order);
    return copy;
  }

  /** Drop every search structure (a retired agent's); entries stay, and a later search rebuilds what it needs. */
  release(): void {
    for (const b of this.buckets.values()) b.index.release();
  }

  /** Add every entry of `other` not already present (normalized text per bucket), in `other`'s insertion order; returns how many were added. */
  mergeFrom(other: Archive): number {
    let added = 0;
    for (const e of other.order) if (this.add(e)) added++;
    return added;
  }

  private bucket(niche: string | null): Bucket {
    let bucket = this.buckets.get(niche);
    if (!bucket) {
      bucket = { index: new VectorIndex<ArchiveEntry>(this.dim, { initialCapacity: this.initialCapacity }), texts: new Set() };
      this.buckets.set(niche, bucket);
    }
    return bucket;
  }

  private search(bucket: Bucket | undefined, query: Float32Array, k: number, asOf: number): ArchiveEntry[] {
    if (query.length !== this.dim) throw new RangeError(`Archive.retrieve: query length ${query.length} does not match dim ${this.dim}`);
    if (!bucket) return [];
    // Entries committed after `asOf` are invisible: a task in flight reads the archive as it was when it started.
    const accept = asOf === Infinity ? undefined : (e: ArchiveEntry) => (e.committedAt ?? 0) <= asOf;
    return bucket.index.search(query, k, accept).map((r) => r.item);
  }
}
