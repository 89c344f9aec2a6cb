import type { UpdateChanges } from '../supervisor-machine';
import type { AppliedEntry, AppliedSinceEntry, RosterChange, RosterLookup, StaleItem } from './policy';

const bucketKey = (niche: string | null) => (niche === null ? 'meta' : `niche:${niche}`);

/**
 * The agents an item for `agentId` reaches: the addressee, then each merge successor in turn, and
 * the roster changes on the way (a retired agent with its successor, or pruned with none).
 */
export function receiverChain(agentId: string, roster: RosterLookup): { chain: string[]; changes: RosterChange[] } {
  const get = typeof roster === 'function' ? roster : (id: string) => roster.find((a) => a.id === id);
  const chain = [agentId];
  const changes: RosterChange[] = [];
  for (let a = get(agentId); a && a.status === 'retired' && chain.length < 64; a = a.successor ? get(a.successor) : undefined) {
    changes.push({ kind: 'retired', agentId: a.id, successor: a.successor });
    if (!a.successor || chain.includes(a.successor)) break;
    chain.push(a.successor);
  }
  return { chain, changes };
}

function appliedEntries(c: UpdateChanges): AppliedEntry[] {
  const out: AppliedEntry[] = [];
  for (const e of c.entries) {
    if (e.status !== 'stored' || e.receiver === null) continue;
    out.push({ kind: 'entry', text: e.entry.text, niche: e.entry.niche, receiver: e.receiver, version: c.poolVersion, source: e.entry.source, taskId: c.taskId });
  }
  return out;
}

/**
 * What the pool took since `item.version` that bears on it, by a scan of `changes`: entries stored
 * at versions in (item.version, current] for the item's receiver (through merges) or in its bucket,
 * oldest first, then the roster changes on the way to the receiver. The reference for
 * `AppliedHistory.since`, which answers the same without rescanning the run.
 */
export function collectSince(changes: readonly UpdateChanges[], item: StaleItem, current: number, roster: RosterLookup = []): AppliedSinceEntry[] {
  const { chain, changes: rosterChanges } = receiverChain(item.request.agentId, roster);
  const receivers = new Set(chain);
  const bucket = bucketKey(item.request.entry.niche);
  const out: AppliedSinceEntry[] = [];
  for (const c of changes) {
    if (c.poolVersion <= item.version || c.poolVersion > current) continue;
    for (const e of appliedEntries(c)) if (receivers.has(e.receiver) || bucketKey(e.niche) === bucket) out.push(e);
  }
  return [...out, ...rosterChanges];
}

/** An append-only list with a moving start: entries leave from the front only. */
class Seq {
  items: Array<{ readonly entry: AppliedEntry; readonly ord: number }> = [];
  head = 0;

  /** Drop entries at versions ≤ `version` from the front; compact when half the array is dead. */
  evict(version: number): void {
    while (this.head < this.items.length && this.items[this.head]!.entry.version <= version) this.head++;
    if (this.head > 64 && this.head * 2 > this.items.length) { this.items = this.items.slice(this.head); this.head = 0; }
  }

  /** Entries at versions in (after, upTo], by binary search for the first one. */
  *range(after: number, upTo: number): Iterable<{ readonly entry: AppliedEntry; readonly ord: number }> {
    let lo = this.head;
    let hi = this.items.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.items[mid]!.entry.version <= after) lo = mid + 1; else hi = mid;
    }
    for (let i = lo; i < this.items.length && this.items[i]!.entry.version <= upTo; i++) yield this.items[i]!;
  }
}

/**
 * The pool's recent stored entries, indexed by receiver and by bucket, for staleness policies. The
 * engine pushes every applied `UpdateChanges`, in version order; `since` answers in time
 * proportional to the relevant entries (plus a binary search per index), never a rescan. Bounded:
 * only the last `capacity` updates are kept, and `covers(version)` says whether an item's whole
 * history is still there.
 */
export class AppliedHistory {
  private readonly byReceiver = new Map<string, Seq>();
  private readonly byBucket = new Map<string, Seq>();
  private updates: Array<{ readonly version: number; readonly touched: readonly Seq[] }> = [];
  private updatesHead = 0;
  private lastVersion = -Infinity;
  private forgotten = -Infinity;
  private ord = 0;

  constructor(readonly capacity = 1024) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`AppliedHistory: capacity must be a positive integer, got ${capacity}`);
  }

  /** Record one applied update. Throws when versions go backwards (the engine applies in version order). */
  push(changes: UpdateChanges): void {
    if (changes.poolVersion <= this.lastVersion) {
      throw new RangeError(`AppliedHistory: update at version ${changes.poolVersion} pushed after version ${this.lastVersion}`);
    }
    this.lastVersion = changes.poolVersion;
    const touched = new Set<Seq>();
    for (const entry of appliedEntries(changes)) {
      const rec = { entry, ord: this.ord++ };
      for (const seq of [seqOf(this.byReceiver, entry.receiver), seqOf(this.byBucket, bucketKey(entry.niche))]) {
        seq.items.push(rec);
        touched.add(seq);
      }
    }
    this.updates.push({ version: changes.poolVersion, touched: [...touched] });
    if (this.updates.length - this.updatesHead > this.capacity) this.evictOldest();
  }

  /** Whether every update after `version` is still held (else `since` lacks the oldest ones). */
  covers(version: number): boolean {
    return version >= this.forgotten;
  }

  /** The same answer as `collectSince` over every update pushed (within the kept window). */
  since(item: StaleItem, current: number, roster: RosterLookup = []): AppliedSinceEntry[] {
    const { chain, changes } = receiverChain(item.request.agentId, roster);
    const seqs = [...chain.map((id) => this.byReceiver.get(id)), this.byBucket.get(bucketKey(item.request.entry.niche))];
    const seen = new Set<number>();
    const hits: Array<{ readonly entry: AppliedEntry; readonly ord: number }> = [];
    for (const seq of seqs) {
      if (!seq) continue;
      for (const r of seq.range(item.version, current)) if (!seen.has(r.ord)) { seen.add(r.ord); hits.push(r); }
    }
    hits.sort((a, b) => a.ord - b.ord);
    return [...hits.map((r) => r.entry), ...changes];
  }

  private evictOldest(): void {
    const old = this.updates[this.updatesHead++]!;
    this.forgotten = old.version;
    for (const seq of old.touched) seq.evict(old.version);
    if (this.updatesHead > 64 && this.updatesHead * 2 > this.updates.length) {
      this.updates = this.updates.slice(this.updatesHead);
      this.updatesHead = 0;
    }
  }
}

function seqOf(map: Map<string, Seq>, key: string): Seq {
  let seq = map.get(key);
  if (!seq) map.set(key, (seq = new Seq()));
  return seq;
}
