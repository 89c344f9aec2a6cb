/**
 * Verdicts that outlive a run: an optional on-disk tier under the process's verdict cache
 * (verdict-cache.ts), shared by every run, sweep worker and calibration that names the same
 * directory. One small file per verdict, named by its content key (a SHA-256 of the program, its
 * tests, the limits and the grader's version: `verdictKey`), so a file is a function of its name and
 * any process may use any other's.
 *
 * - Written only by the trusted side (Node, after the sandbox's result was read and judged), never
 *   from a candidate's process: the directory is the host's, outside bubblewrap's view, mode 0700.
 * - Safe under concurrent writers: each verdict is written to a temporary file of its own, then
 *   renamed over the name (atomic on one file system); two writers of one key write the same bytes.
 * - Bounded: 64 shards by the key's first character, each kept to `capacity / 64` files; a write
 *   that finds its shard over that removes its least recently used tenth (a hit touches the file).
 * - A file that does not read back as a verdict of its own key is ignored and removed.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Most verdicts the directory keeps (a few hundred bytes each: about 50 MiB when full). */
export const DISK_VERDICT_CAPACITY = 100_000;
const SHARDS = 64;
/** A temporary file older than this belongs to a writer that died between write and rename. */
const STALE_TMP_MS = 60 * 60 * 1000;
/**
 * What the trusted side does with a sandbox's answers (test splitting, operators, plain values):
 * bump it when that changes. The sandbox's own Python programs are part of the key by content.
 */
export const GRADER_VERSION = 'code-grader/1';

let sandboxDigest: string | null = null;

/** SHA-256 of the sandbox's Python programs (worker, policy, checker, splitter): a changed checker is a new grader. */
export function sandboxVersion(): string {
  if (sandboxDigest !== null) return sandboxDigest;
  const dir = fileURLToPath(new URL('./sandbox', import.meta.url));
  const h = createHash('sha256').update(GRADER_VERSION);
  for (const f of readdirSync(dir).filter((n) => n.endsWith('.py')).sort()) h.update(`\0${f}\0`).update(readFileSync(path.join(dir, f)));
  sandboxDigest = h.digest('base64url');
  return sandboxDigest;
}

/** The user's verdict directory: $XDG_CACHE_HOME/evochamber/verdicts, else ~/.cache/evochamber/verdicts. */
export function defaultVerdictDir(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CACHE_HOME && path.isAbsolute(env.XDG_CACHE_HOME) ? env.XDG_CACHE_HOME : path.join(homedir(), '.cache');
  return path.join(base, 'evochamber', 'verdicts');
}

/**
 * Where verdicts persist for a run, or null: the scenario's `grading.verdictCache` (true: the
 * user's cache directory; a path, relative to the scenario's directory), else the environment's
 * `EVOCHAMBER_VERDICT_CACHE` (`1`: the user's cache directory; a path; `0`/`off`/empty: none).
 */
export function verdictDirFor(setting: boolean | string | undefined, scenarioDir: string, env: NodeJS.ProcessEnv = process.env): string | null {
  if (setting === false) return null;
  if (setting === true) return defaultVerdictDir(env);
  if (typeof setting === 'string') return path.resolve(scenarioDir, setting);
  const e = env.EVOCHAMBER_VERDICT_CACHE?.trim() ?? '';
  if (e === '' || e === '0' || e.toLowerCase() === 'off') return null;
  return e === '1' ? defaultVerdictDir(env) : path.resolve(e);
}

/** One verdict directory. Every method is synchronous and never throws: a disk that fails is a miss. */
export class DiskVerdicts {
  hits = 0;
  misses = 0;
  writes = 0;
  private readonly perShard: number;

  constructor(readonly dir: string, readonly capacity = DISK_VERDICT_CAPACITY) {
    this.perShard = Math.max(1, Math.ceil(capacity / SHARDS));
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  }

  private file(key: string): string {
    return path.join(this.dir, key.slice(0, 1), key);
  }

  /** The verdict kept for `key` when it reads back whole and `valid` takes it; else null. */
  get(key: string, valid: (value: string) => boolean): string | null {
    const file = this.file(key);
    try {
      const rec = JSON.parse(readFileSync(file, 'utf8')) as { key?: unknown; verdict?: unknown };
      if (rec.key === key && typeof rec.verdict === 'string' && valid(rec.verdict)) {
        this.hits++;
        // The file system's own clock, not the run's: eviction compares mtimes that other processes
        // set, so an injected (virtual) clock would mis-order them. No verdict depends on it.
        const now = new Date();
        utimesSync(file, now, now); // recently used: the last to be evicted
        return rec.verdict;
      }
      rmSync(file, { force: true });
    } catch {
      // absent, being replaced, or unreadable: a miss
    }
    this.misses++;
    return null;
  }

  /** Keep `verdict` for `key`: written whole under a name of its own, then renamed into place. */
  put(key: string, verdict: string): void {
    const file = this.file(key);
    const tmp = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
    try {
      mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
      writeFileSync(tmp, JSON.stringify({ key, verdict }), { flag: 'wx', mode: 0o600 });
      renameSync(tmp, file);
      this.writes++;
      this.prune(path.dirname(file));
    } catch {
      rmSync(tmp, { force: true });
    }
  }

  /** Keep a shard within its share of the capacity: drop its least recently used tenth when over. */
  private prune(shard: string): void {
    const names = readdirSync(shard);
    if (names.length <= this.perShard) return;
    const now = Date.now(); // compared with mtimes, the file system's clock (see get)
    const entries: { name: string; used: number }[] = [];
    for (const name of names) {
      try {
        const used = statSync(path.join(shard, name)).mtimeMs;
        if (!name.endsWith('.tmp')) entries.push({ name, used });
        else if (now - used > STALE_TMP_MS) rmSync(path.join(shard, name), { force: true });
      } catch {
        // removed by another process meanwhile
      }
    }
    entries.sort((a, b) => a.used - b.used);
    const drop = entries.length - Math.floor(this.perShard * 0.9);
    for (const e of entries.slice(0, Math.max(0, drop))) rmSync(path.join(shard, e.name), { force: true });
  }
}

/** One `DiskVerdicts` per directory in this process (its counters shared by every grader using it). */
const opened = new Map<string, DiskVerdicts>();

export function openDiskVerdicts(dir: string): DiskVerdicts {
  const abs = path.resolve(dir);
  let d = opened.get(abs);
  if (!d) {
    d = new DiskVerdicts(abs);
    opened.set(abs, d);
  }
  return d;
}
