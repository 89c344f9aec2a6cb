import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';

/** The contents of `run.lock`: which process owns a run directory. */
export interface RunLockInfo {
  readonly pid: number;
  readonly host: string;
  readonly startedAt: string;
}

/** Whether the owner of a lock is alive: `alive`, `dead`, or `unknown` (another host: cannot check). */
export type LockLiveness = 'alive' | 'dead' | 'unknown';

const LOCK_FILE = 'run.lock';

/** The lock of a run directory (or an ablation's, under its own `file`), or null when there is none (or it is unreadable). */
export function readRunLock(dir: string, file = LOCK_FILE): RunLockInfo | null {
  try {
    const v = JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as RunLockInfo;
    return typeof v.pid === 'number' && typeof v.host === 'string' ? v : null;
  } catch {
    return null;
  }
}

/** Is the process holding `lock` still running? Checked with `kill(pid, 0)` on this host only. */
export function lockLiveness(lock: RunLockInfo): LockLiveness {
  if (lock.host !== hostname()) return 'unknown';
  if (lock.pid === process.pid) return 'alive';
  try {
    process.kill(lock.pid, 0);
    // kill(pid, 0) answers for a zombie too: a killed run whose parent has not reaped it yet has exited.
    return hasExited(lock.pid) ? 'dead' : 'alive';
  } catch (err) {
    // EPERM: the process exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM' ? 'alive' : 'dead';
  }
}

/**
 * True when `pid` is a zombie or dead (Linux's /proc/PID/stat state Z or X): it has exited and
 * writes nothing more, whatever its parent does. False when it runs, or when /proc cannot say.
 */
export function hasExited(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name is in parentheses and may hold spaces: the state is the first field after the last ')'.
    const state = stat.slice(stat.lastIndexOf(')') + 1).trim().split(' ')[0];
    return state === 'Z' || state === 'X';
  } catch {
    return false;
  }
}

/** A run directory is owned by a live process. */
export class RunLockedError extends Error {
  constructor(dir: string, lock: RunLockInfo, liveness: LockLiveness, file = LOCK_FILE) {
    super(liveness === 'unknown'
      ? `${dir} is locked by pid ${lock.pid} on host ${lock.host} (cannot check from here; delete ${file} if that run is gone)`
      : `${dir} is in use by a running process (pid ${lock.pid} on ${lock.host}); if you just stopped it, it is still exiting: try again in a moment`);
    this.name = 'RunLockedError';
  }
}

/**
 * `run.lock` records the pid and host of the process writing a run directory, so `inspect` can
 * tell a live run from a crashed one and two processes never write the same run. A lock whose
 * process is gone is stale and taken over.
 */
export class RunLock {
  private constructor(readonly dir: string, private readonly file: string) {}

  /**
   * Take the lock; throws RunLockedError when a live process (or one on another host) holds it.
   * `file` names the lock (an ablation's directory has its own, `ablation.lock`).
   */
  static acquire(dir: string, startedAt: string, file = LOCK_FILE): RunLock {
    RunLock.refuseLive(dir, file);
    const info: RunLockInfo = { pid: process.pid, host: hostname(), startedAt };
    writeFileSync(path.join(dir, file), `${JSON.stringify(info)}\n`);
    return new RunLock(dir, file);
  }

  /** Throw RunLockedError when another live process (or one on another host) holds `dir`'s lock. */
  static refuseLive(dir: string, file = LOCK_FILE): void {
    const held = readRunLock(dir, file);
    if (held && !(held.pid === process.pid && held.host === hostname())) {
      const l = lockLiveness(held);
      if (l !== 'dead') throw new RunLockedError(dir, held, l, file);
    }
  }

  /** Remove the lock (synchronous: also safe on the way out of a signal handler). Idempotent. */
  release(): void {
    rmSync(path.join(this.dir, this.file), { force: true });
  }
}
