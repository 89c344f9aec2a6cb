/**
 * The sandbox pool's shared state and the steps every part of it takes: hold or release a
 * process's handles, stop a checker, kill a worker's group, give up on a job. The pool's parts
 * (workers.ts, checker.ts, the handle in code-sandbox.ts) act on one `PoolState`.
 */
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import type { Job, SandboxResult } from './job';
export type { Job } from './job';
import type { WorkerLaunch } from '../sandbox-isolation';
import { failed } from './results';

/** The trusted process that runs a worker's script tests (one per worker, started on first use). */
export interface Checker {
  readonly proc: ChildProcessWithoutNullStreams;
  /** Resolves once the process has exited and Node has reaped it (or it never started). */
  readonly exited: Promise<void>;
  /** True once `exited` has resolved: its pid may then belong to another process. */
  reaped: boolean;
  buf: string;
  dead: boolean;
  /** It said {"ready": true}: a death before that is the harness's failure, not the candidate's. */
  ready: boolean;
  stderr: string;
}

export interface Worker {
  readonly proc: ChildProcessWithoutNullStreams;
  /** The uid its candidates run as (when the worker may change uid). */
  readonly uid: number;
  checker: Checker | null;
  ready: boolean;
  job: Job | null;
  /** Set once we have decided to kill it: never dispatch to it again. */
  retired: boolean;
  dead: boolean;
  buf: string;
  stderr: string;
  readonly exited: Promise<void>;
  markExited: () => void;
  /** Fallback only: the worker's own temporary directory (its TMPDIR), removed when it dies. */
  readonly scratch: string | null;
}

/** Everything one pool knows; its parts share it. */
export interface PoolState {
  readonly launch: WorkerLaunch;
  /** Most workers at once. */
  readonly size: number;
  readonly timeoutMs: number;
  readonly wallMs: number;
  readonly memoryMb: number;
  /** When a job's worker is deemed to have stopped answering (see createSandboxPool). */
  readonly hardDeadlineMs: number;
  readonly workers: Worker[];
  readonly queue: Job[];
  /** Every checker not yet reaped, its worker's or one being stopped: close() waits for them all. */
  readonly checkers: Set<Checker>;
  nextId: number;
  /** Workers that died in a row before saying "ready". */
  startFailures: number;
  /** Why the pool gave up (workers fail to start), else null: every job then fails at once. */
  broken: string | null;
  closing: Promise<void> | null;
  /** Dispatch queued jobs to idle workers and start workers for the backlog (workers.ts). */
  pump(): void;
}

/**
 * How long a closing pool, or a checker being stopped, waits for its processes to end on their own
 * (stdin closed: a worker ends its candidates and exits, bubblewrap and unshare reap what they
 * started) before it kills their process groups. A group kill leaves a sandbox's inner processes to
 * the host's init, as zombies until it reaps them.
 */
export const STOP_GRACE_MS = 2000;
/** A worker that dies this many times in a row before saying "ready" marks the pool broken. */
export const MAX_START_FAILURES = 3;
/** Longest line a worker may send; replies are capped far below this. */
export const MAX_LINE = 16 * 1024 * 1024;

export function killGroupNow(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL'); // detached: each process leads its own group
  } catch {
    // already gone
  }
}

/**
 * Idle workers must not keep Node alive (a forgotten `close()` would hang the process), but a
 * worker that is starting for a queued job, or running one, must: its reply is awaited.
 */
export function hold(w: Pick<Worker, 'proc' | 'checker'>, on: boolean): void {
  const procs = w.checker && !w.checker.dead ? [w.proc, w.checker.proc] : [w.proc];
  for (const h of procs.flatMap((p) => [p, p.stdout, p.stdin, p.stderr]) as unknown[]) {
    const handle = h as { ref?: () => void; unref?: () => void };
    if (on) handle.ref?.();
    else handle.unref?.();
  }
}

/** Complete lines from a stream's chunks: `buf` keeps the unfinished rest. */
export function takeLines(holder: { buf: string }, chunk: string): string[] {
  holder.buf += chunk;
  const lines = holder.buf.split('\n');
  holder.buf = lines.pop() ?? '';
  return lines;
}

/** Stop the worker's checker: it is trusted, so first ask (end its stdin), then kill its group after the grace. */
export function killChecker(w: Worker): void {
  const c = w.checker;
  w.checker = null;
  if (!c || c.dead || c.proc.pid === undefined) return;
  c.dead = true;
  c.proc.stdin.end();
  const timer = setTimeout(() => { if (!c.reaped) killGroupNow(c.proc.pid); }, STOP_GRACE_MS);
  timer.unref();
  void c.exited.then(() => clearTimeout(timer));
}

/** Retire a worker: stop its checker and kill its process group (it leads its own). */
export function killGroup(w: Worker): void {
  killChecker(w);
  w.retired = true;
  killGroupNow(w.proc.pid);
}

/** Give up on the worker's job (the worker is killed: it may be waiting on a relay that never comes). */
export function failJob(pool: PoolState, w: Worker, why: string, infrastructure = false): void {
  const job = w.job;
  if (!job) return;
  w.job = null;
  clearTimeout(job.timer);
  killGroup(w);
  job.resolve(failed(job, why, infrastructure));
  pool.pump();
}
