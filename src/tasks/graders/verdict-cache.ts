/**
 * A content-addressed cache of code verdicts, shared by every code grader of the process: the
 * same program run against the same tests under the same limits and isolation gets the verdict it
 * got before without going back to the sandbox (what OpenEvolve and GEPA do). A sandbox run is
 * deterministic for its inputs, with two exceptions that are never stored: a run that ran out of
 * time or was killed by a signal (CPU time is what is limited, but a signal can come from outside:
 * the OOM killer, a shutdown), and a run that failed for the harness's own reasons (infrastructure
 * errors, a worker that died). A program that touched a source of nondeterminism is run twice
first, and one whose two verdicts differ (flaky) is not stored either (nondeterminism.ts).
Concurrent requests for one key share one sandbox run.
 *
 * Capacity: `VERDICT_CACHE_CAPACITY` entries (least recently used evicted first). The code grader
 * keeps each verdict as one compact string (code-grader.ts, `storeVerdict`), a few hundred bytes
 * for the built-in code niches, so a few MiB when full.
 */
import { createHash } from 'node:crypto';
import { LruMap } from '../../core/lru-map';

/** Most verdicts the cache holds; the least recently used goes first. */
export const VERDICT_CACHE_CAPACITY = 10_000;

/** What a cached run gave back: any value, plus whether it may be kept. */
export interface Cacheable<T> {
  readonly value: T;
  /** False for a timeout, a signal or an infrastructure failure: the next request runs again. */
  readonly keep: boolean;
}

/** A process-wide least-recently-used map from a content key to a verdict (or the run computing it). */
export class VerdictCache<T> {
  private readonly done: LruMap<string, T>;
  private readonly running = new Map<string, Promise<Cacheable<T>>>();
  private readonly keptListeners: ((key: string, value: T) => void)[] = [];
  hits = 0;
  misses = 0;

  constructor(readonly capacity = VERDICT_CACHE_CAPACITY) {
    this.done = new LruMap(capacity);
  }

  /** The content key of a program, its tests and everything else the verdict depends on. */
  static key(parts: readonly unknown[]): string {
    return createHash('sha256').update(JSON.stringify(parts)).digest('base64url');
  }

  /** The stored verdict for `key`, or the one `compute` gives (stored only when `keep`). */
  async get(key: string, compute: () => Promise<Cacheable<T>>): Promise<T> {
    const hit = this.done.get(key);
    if (hit !== undefined) {
      this.hits++;
      return hit;
    }
    let run = this.running.get(key);
    if (!run) {
      this.misses++;
      run = compute();
      this.running.set(key, run);
      run.then((r) => {
        this.running.delete(key);
        if (!r.keep) return;
        this.done.set(key, r.value);
        for (const f of this.keptListeners) f(key, r.value);
      }, () => this.running.delete(key));
    }
    return (await run).value;
  }

  /**
   * Be told each verdict this cache ran and kept (not those `put` into it): a sweep's processes pass
   * them to one another. Returns what stops telling `f`.
   */
  onKept(f: (key: string, value: T) => void): () => void {
    this.keptListeners.push(f);
    return () => {
      const i = this.keptListeners.indexOf(f);
      if (i >= 0) this.keptListeners.splice(i, 1);
    };
  }

  /**
   * Keep a verdict another process ran and kept for `key` (a sweep's other worker): a kept verdict
   * is a function of its key alone, so it is the one this process would get. Listeners are not told.
   */
  put(key: string, value: T): void {
    if (!this.done.has(key)) this.done.set(key, value);
  }

  /** Verdicts held now. */
  get size(): number {
    return this.done.size;
  }

  /** Forget every verdict (tests; a cache is otherwise never cleared). */
  clear(): void {
    this.done.clear();
    this.hits = 0;
    this.misses = 0;
  }
}
