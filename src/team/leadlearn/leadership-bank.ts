import { BankWindow } from './bank-window';
import { choosableStructures, STRUCTURE_KINDS } from '../structures';
import { LeadershipStats } from './leadership-stats';

/** The registered structures a leader can choose (derived from the structure descriptors; follows `registerStructure`). */
export const STRUCTURE_NAMES: readonly string[] = choosableStructures().map((d) => d.name);
STRUCTURE_KINDS.onRegister((d) => { if (d.choosable) (STRUCTURE_NAMES as string[]).push(d.name); });
/** A structure's name (a `StructureDescriptor.name`). */
export type StructureName = string;

/** One record of the shared leadership bank: who led what, how, and how it went. */
export interface LeadershipEntry {
  readonly id: string;
  readonly taskId: string;
  readonly niche: string;
  readonly difficulty: number;
  /** Competence on the niche of anchor, complement and scout when the task started. */
  readonly teamProfile: readonly number[];
  readonly structure: string;
  /** Team reward, 0–1. */
  readonly outcome: number;
  /** The leader's one-line note on why it worked or failed. */
  readonly note: string;
  readonly poolVersion: number;
  readonly key: Float32Array;
  /** Pool version at which the supervisor appended it. */
  readonly committedAt?: number;
  /**
   * Pool version at which the leader's note was applied. The outcome is committed with the task's
   * grade; the note comes later from the evolve stage, so readers as of an earlier version see no note.
   */
  readonly noteAt?: number;
}

/**
 * The retrieval key of `[niche, team competence profile]`: the niche's embedding (unit length)
 * followed by the profile centred on 0.5 and scaled down, so the niche dominates and the
 * profile orders entries within it.
 */
export function leadershipKey(nicheEmbedding: Float32Array, profile: readonly number[]): Float32Array {
  const key = new Float32Array(nicheEmbedding.length + 3);
  key.set(nicheEmbedding);
  for (let i = 0; i < 3; i++) key[nicheEmbedding.length + i] = 0.5 * ((profile[i] ?? 0.5) - 0.5);
  return key;
}

/** The append-only storage every version of a bank shares. */
export interface BankStore {
  /** The latest records of each niche (`bounds.leadlearnWindow`), searched by queries. */
  readonly index: BankWindow<LeadershipEntry>;
  /** The commit version of every record ever added, in order (what `size` counts as of a version). */
  readonly committed: number[];
  readonly stats: LeadershipStats;
  readonly byId: Map<string, LeadershipEntry>;
  /** Each entry's notes in the order applied, with the version each was applied at. */
  readonly notes: Map<string, { readonly at: number; readonly note: string }[]>;
}

/** What a bank's readers may ask of its statistics (LeadershipStats, as of the bank's version at most). */
export type LeadershipStatsReader = Pick<LeadershipStats, 'forNiche' | 'priorFor'>;

/**
 * LeadLearn's shared bank (owned by the population supervisor; written only through its
 * updates). Holds the latest `window` records of each niche (older ones live in the event log;
 * the statistics count every record); queries return the most similar entries first, deterministically.
 *
 * Versioned: every version shares one append-only store, and a bank value reads the store as of
 * its own pool version (`upTo`), so a bank held in an old snapshot never changes. `with` returns
 * the bank as of a new version with an entry or a note added; `add` and `setNote` write the
 * newest bank in place, for building one nobody holds yet.
 */
export class LeadershipBank {
  private readonly store: BankStore;
  /** The pool version this bank reads the store as of (Infinity: everything, now and later). */
  private readonly upTo: number;

  /** A niche's records share their key's head (its embedding, `leadershipKey`), so queries score each niche's head once. */
  constructor(readonly embeddingDim: number, store?: BankStore, upTo = Infinity, window = Infinity) {
    this.store = store ?? { index: new BankWindow<LeadershipEntry>(embeddingDim + 3, window, embeddingDim, (e) => e.committedAt ?? 0), committed: [], stats: new LeadershipStats(), byId: new Map(), notes: new Map() };
    this.upTo = upTo;
  }

  /** The bank as of pool version `version` (sharing the store). */
  at(version: number): LeadershipBank {
    return new LeadershipBank(this.embeddingDim, this.store, version);
  }

  /**
   * The bank as of `version` with `entry` appended and `note` applied (either may be null); this
   * bank reads as before. Versions only grow: `version` must be past every version written.
   */
  with(entry: LeadershipEntry | null, note: { readonly entryId: string; readonly note: string } | null, version: number): LeadershipBank {
    if (entry) this.add(entry);
    if (note) this.setNote(note.entryId, note.note, version);
    return this.at(version);
  }

  /** Number of records ever committed by this bank's version (held or not). */
  get size(): number {
    const { committed } = this.store;
    if (this.upTo === Infinity) return committed.length;
    // Commit versions only grow: the count is a binary search.
    let lo = 0;
    let hi = committed.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (committed[mid]! <= this.upTo) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Per-niche statistics of every structure (and the cross-niche prior), as of this bank's version at most. */
  get stats(): LeadershipStatsReader {
    const { stats } = this.store;
    const cap = (asOf: number) => Math.min(asOf, this.upTo);
    return {
      forNiche: (niche, structures, asOf = Infinity) => stats.forNiche(niche, structures, cap(asOf)),
      priorFor: (niche, structures, asOf = Infinity, minRecords) => stats.priorFor(niche, structures, cap(asOf), minRecords),
    };
  }

  /** Append one entry (and count it in the statistics as of its commit version). */
  add(entry: LeadershipEntry): void {
    if (this.store.byId.has(entry.id)) throw new Error(`leadership bank: entry ${entry.id} added twice`);
    // Stored as a copy: a note applied later is kept beside it, never written into the caller's object.
    const stored = { ...entry };
    this.store.byId.set(entry.id, stored);
    this.store.committed.push(entry.committedAt ?? 0);
    // A record its niche's window drops is forgotten here too (a later note for it is not applied).
    for (const old of this.store.index.add(stored)) {
      this.store.byId.delete(old.id);
      this.store.notes.delete(old.id);
    }
    this.store.stats.add(entry.niche, entry.structure, entry.outcome, entry.committedAt ?? 0);
  }

  /** The `k` entries nearest to a `leadershipKey`, among those committed by pool version `asOf` (a note applied later reads as empty). */
  query(key: Float32Array, k: number, asOf = Infinity): LeadershipEntry[] {
    const at = Math.min(asOf, this.upTo);
    return this.store.index.search(key, k, { upTo: at }).map((r) => this.asOf(r.item, at));
  }

  /** True when an entry with this id is in the bank (committed by this bank's version). */
  has(id: string): boolean {
    const e = this.store.byId.get(id);
    return e !== undefined && this.visible(e);
  }

  /** Set the leader's note of an entry, as of pool version `version` (the evolve stage writes it after the outcome). */
  setNote(id: string, note: string, version: number): LeadershipEntry {
    const entry = this.store.byId.get(id);
    if (!entry) throw new Error(`leadership bank: no entry ${id} to note`);
    const list = this.store.notes.get(id) ?? [];
    list.push({ at: version, note });
    this.store.notes.set(id, list);
    return this.asOf(entry, version);
  }

  /** All held entries in insertion order, as of this bank's version (each with its note as of then). */
  entries(): readonly LeadershipEntry[] {
    return this.store.index.all().filter((e) => this.visible(e)).map((e) => this.asOf(e, this.upTo));
  }

  private visible(e: LeadershipEntry): boolean {
    return (e.committedAt ?? 0) <= this.upTo;
  }

  /** An entry as a reader at version `at` sees it: the last note applied by then (none: empty). */
  private asOf(e: LeadershipEntry, at: number): LeadershipEntry {
    const notes = this.store.notes.get(e.id);
    if (!notes) return e;
    let last: { at: number; note: string } | undefined;
    for (const n of notes) if (n.at <= at) last = n;
    return last ? { ...e, note: last.note, noteAt: last.at } : e;
  }
}
