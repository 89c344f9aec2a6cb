import { VectorIndex } from '../../store/vector-index';
import { choosableStructures } from '../structures';
import { LeadershipStats } from './leadership-stats';

/** The built-in structures a leader can choose (derived from the structure descriptors). */
export const STRUCTURE_NAMES: readonly string[] = choosableStructures().map((d) => d.name);
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

/**
 * LeadLearn's shared bank (owned by the population supervisor; written only through its
 * updates). Grows without a cap; queries return the most similar entries first, deterministically.
 */
export class LeadershipBank {
  private readonly index: VectorIndex<LeadershipEntry>;
  /** Per-niche statistics of every structure (and the cross-niche prior), updated with each entry. */
  readonly stats = new LeadershipStats();
  private readonly byId = new Map<string, LeadershipEntry>();

  constructor(readonly embeddingDim: number) {
    this.index = new VectorIndex<LeadershipEntry>(embeddingDim + 3);
  }

  /** Number of entries. */
  get size(): number {
    return this.index.size;
  }

  /** Append one entry (and count it in the statistics as of its commit version). */
  add(entry: LeadershipEntry): void {
    if (this.byId.has(entry.id)) throw new Error(`leadership bank: entry ${entry.id} added twice`);
    this.index.add(entry);
    this.byId.set(entry.id, entry);
    this.stats.add(entry.niche, entry.structure, entry.outcome, entry.committedAt ?? 0);
  }

  /** The `k` entries nearest to a `leadershipKey`, among those committed by pool version `asOf` (a note applied later reads as empty). */
  query(key: Float32Array, k: number, asOf = Infinity): LeadershipEntry[] {
    return this.index.search(key, k, (e) => (e.committedAt ?? 0) <= asOf)
      .map((r) => ((r.item.noteAt ?? 0) > asOf ? { ...r.item, note: '' } : r.item));
  }

  /** True when an entry with this id is in the bank. */
  has(id: string): boolean {
    return this.byId.has(id);
  }

  /** Set the leader's note of an entry, as of pool version `version` (the evolve stage writes it after the outcome). */
  setNote(id: string, note: string, version: number): LeadershipEntry {
    const entry = this.byId.get(id);
    if (!entry) throw new Error(`leadership bank: no entry ${id} to note`);
    const mutable = entry as { -readonly [K in keyof LeadershipEntry]: LeadershipEntry[K] };
    mutable.note = note;
    mutable.noteAt = version;
    return entry;
  }

  /** All entries in insertion order. */
  entries(): readonly LeadershipEntry[] {
    return this.index.all();
  }
}
