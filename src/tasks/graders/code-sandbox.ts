/**
 * A small pool of long-lived Python sandbox workers (see sandbox/sandbox_worker.py for the protocol and
 * docs/sandbox-threat-model.md for what it guards against). Jobs travel as JSON lines; each
 * worker runs one job at a time and extra jobs queue. A job's script tests run in the worker's
 * trusted checker (sandbox/sandbox_checker.py, its own process outside the sandbox): this pool relays
 * each call the checker makes to the worker and the candidate's plain-data answer back. A worker
 * that crashes or stops answering is killed (whole process group, and its checker) and replaced;
 * its job comes back as a failed result. The parts: sandbox-pool/workers.ts (workers, dispatch),
 * sandbox-pool/checker.ts (the checker and the relay), sandbox-pool/results.ts (replies read
 * strictly), sandbox-pool/state.ts (what they share), sandbox-pool/job.ts (a job and its result).
 */
import { planWorkerLaunch, type SandboxIsolation } from './sandbox-isolation';
import { failed } from './sandbox-pool/results';
import { hold, killChecker, killGroupNow, STOP_GRACE_MS, type PoolState } from './sandbox-pool/state';
import { pump } from './sandbox-pool/workers';
import type { SandboxJob, SandboxResult } from './sandbox-pool/job';

/** Pool settings. Defaults: 2 workers, 2000 ms per job, 512 MB address space per candidate. */
export interface SandboxOptions {
  readonly workers?: number;
  /**
   * CPU-time limit (user + system, all threads of the candidate's process) for one candidate plus
   * all its tests, in milliseconds, per run mode (probes, scripts). CPU time, not wall time, so a
   * busy machine slows candidates down without failing them: the verdict does not depend on load.
   */
  readonly timeoutMs?: number;
  /**
   * Wall-clock backstop per run mode, as a multiple of `timeoutMs` (default 10): it only cuts
   * candidates that sleep or block (they use no CPU), and that counts as a timeout too.
   */
  readonly wallFactor?: number;
  /** Address-space limit (RLIMIT_AS) for one candidate, in megabytes. */
  readonly memoryMb?: number;
  /** Python command to resolve (default `python3`). */
  readonly python?: string;
  /** `fallback` skips bubblewrap even when it works (for testing the weaker path). */
  readonly isolation?: 'auto' | 'fallback';
  /**
   * Run candidates without bubblewrap when it is unavailable. Off by default: creating a pool
   * then throws, saying how to install bubblewrap. Scenarios opt in with `grading.allowUnsandboxed`.
   */
  readonly allowUnsandboxed?: boolean;
}

export type { SandboxJob, SandboxResult, TestOutcome } from './sandbox-pool/job';

/** Handle to a running pool. `run` never rejects; `close` is idempotent. */
export interface SandboxPool {
  readonly isolation: SandboxIsolation;
  readonly timeoutMs: number;
  run(job: SandboxJob): Promise<SandboxResult>;
  /** OS pids of live worker processes (the bwrap/unshare wrapper when there is one); diagnostics only. */
  workerPids(): number[];
  close(): Promise<void>;
}

/** Sync killers of every open pool's processes, run when Node exits without closing them (a second Ctrl-C). */
const openPools = new Set<() => void>();
let exitHook = false;

/** Default wall backstop: a candidate on a machine ten times oversubscribed still gets its CPU time. */
const DEFAULT_WALL_FACTOR = 10;

/** Start a pool. Throws right away when python3 is missing; workers themselves start lazily. */
export function createSandboxPool(opts: SandboxOptions = {}): SandboxPool {
  const pool = poolState(opts);
  const killAllNow = (): void => {
    for (const w of pool.workers) if (!w.dead) killGroupNow(w.proc.pid);
    for (const c of pool.checkers) if (!c.reaped) killGroupNow(c.proc.pid);
  };
  openPools.add(killAllNow);
  if (!exitHook) {
    exitHook = true;
    process.on('exit', () => { for (const kill of openPools) kill(); });
  }
  return {
    isolation: pool.launch.isolation,
    timeoutMs: pool.timeoutMs,
    run: (spec) => new Promise<SandboxResult>((resolve) => {
      if (pool.closing) return resolve(failed(spec, 'sandbox closed', true));
      if (pool.broken) return resolve(failed(spec, pool.broken, true));
      const job = { code: spec.code, setup: spec.setup ?? '', probes: [...(spec.probes ?? [])], scripts: [...(spec.scripts ?? [])], helpers: spec.helpers ?? '' };
      pool.queue.push({ id: pool.nextId++, ...job, resolve, relay: job.scripts.length > 0 ? 'loading' : 'none', nested: [] });
      pool.pump();
    }),
    workerPids: () => pool.workers.filter((w) => !w.dead && w.proc.pid !== undefined).map((w) => w.proc.pid!),
    close: () => (pool.closing ??= closePool(pool).then(() => { openPools.delete(killAllNow); })),
  };
}

/** The pool's settings and empty state, from its options and the host's launch plan. */
function poolState(opts: SandboxOptions): PoolState {
  const timeoutMs = Math.max(1, opts.timeoutMs ?? 2000);
  const wallMs = Math.ceil(timeoutMs * Math.max(1, opts.wallFactor ?? DEFAULT_WALL_FACTOR));
  const pool: PoolState = {
    launch: planWorkerLaunch({ python: opts.python, isolation: opts.isolation, allowUnsandboxed: opts.allowUnsandboxed }),
    size: Math.max(1, Math.floor(opts.workers ?? 2)),
    timeoutMs,
    wallMs,
    memoryMb: Math.max(32, opts.memoryMb ?? 512),
    // The worker enforces both limits itself; this deadline only catches a worker that stopped
    // answering. Probes and scripts each run at most wallMs of wall time, hence twice it plus a margin.
    hardDeadlineMs: 2 * wallMs + Math.max(2000, timeoutMs),
    workers: [],
    queue: [],
    checkers: new Set(),
    nextId: 1,
    startFailures: 0,
    broken: null,
    closing: null,
    pump: () => pump(pool),
  };
  return pool;
}

/**
 * Fail the queued jobs, ask every worker and checker to end (stdin closed: a worker ends its
 * candidates and exits, bubblewrap or unshare reap their inner processes), and kill only those
 * that have not ended after the grace.
 */
async function closePool(pool: PoolState): Promise<void> {
  for (const job of pool.queue.splice(0)) job.resolve(failed(job, 'sandbox closed', true));
  const live = [...pool.workers];
  for (const w of live) {
    hold(w, true); // an unref'd handle would let Node exit before the awaited 'exit' event
    killChecker(w);
    w.retired = true;
    w.proc.stdin.end();
  }
  const stopping = [...pool.checkers];
  for (const c of stopping) hold({ proc: c.proc, checker: null }, true);
  const grace = setTimeout(() => {
    for (const w of live) if (!w.dead) killGroupNow(w.proc.pid);
    for (const c of stopping) if (!c.reaped) killGroupNow(c.proc.pid);
  }, STOP_GRACE_MS);
  await Promise.all([...live.map((w) => w.exited), ...stopping.map((c) => c.exited)]);
  clearTimeout(grace);
}
