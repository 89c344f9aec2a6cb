/**
 * The pool's workers: start them as the backlog needs (up to the pool's size), hand each one job
 * at a time, read their lines strictly in turn, and replace one that dies (its job comes back
 * failed). See sandbox/sandbox_worker.py for the worker's side of the protocol.
 */
import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onLoaded, relayAnswer, relayCallBack } from './checker';
import { failed, toResult, type WorkerReply } from './results';
import { hold, killChecker, killGroup, MAX_LINE, MAX_START_FAILURES, takeLines, type Job, type PoolState, type Worker } from './state';

/**
 * Candidates of one worker run under a uid no other worker of any pool in this process uses (RLIMIT_NPROC
 * counts per uid): a high range, offset by the Node pid so two processes on one host rarely meet.
 */
const UID_BASE = 200_000 + (process.pid % 4096) * 256;
let uidCounter = 0;

/** Dispatch queued jobs to idle workers, then start as many workers as the backlog needs, up to the pool size. */
export function pump(pool: PoolState): void {
  if (pool.closing || pool.broken) return;
  for (;;) {
    const idle = pool.workers.find((w) => w.ready && !w.job && !w.retired);
    if (!idle || pool.queue.length === 0) break;
    dispatch(pool, idle, pool.queue.shift()!);
  }
  // Retired workers are on their way out; starting ones will take a job each.
  let alive = pool.workers.filter((w) => !w.retired).length;
  let wanted = pool.queue.length - pool.workers.filter((w) => !w.ready && !w.retired).length;
  for (; wanted > 0 && alive < pool.size; wanted--, alive++) spawnWorker(pool);
}

function dispatch(pool: PoolState, w: Worker, job: Job): void {
  w.job = job;
  hold(w, true);
  // The worker enforces the job's limits itself; this deadline only catches one that stopped answering.
  job.timer = setTimeout(() => {
    if (w.job !== job) return;
    w.job = null;
    killGroup(w);
    job.resolve(failed(job, `timeout after ${pool.timeoutMs} ms (sandbox worker stopped answering and was restarted)`, false));
    pool.pump();
  }, pool.hardDeadlineMs);
  const { timeoutMs, wallMs, memoryMb } = pool;
  w.proc.stdin.write(`${JSON.stringify({ id: job.id, code: job.code, setup: job.setup, probes: job.probes, calls: job.scripts.length > 0, timeoutMs, wallMs, memoryMb })}\n`);
}

function spawnWorker(pool: PoolState): void {
  const uid = UID_BASE + (uidCounter++ % 256);
  const spec = pool.launch.worker(uid);
  // Without bubblewrap the worker's per-candidate directories (cand-*) are on the host's disk, and a
  // worker killed by close() or a timeout cannot remove the ones it made ahead. They go in a
  // directory of its own that is removed when it dies. Traversable (not listable) by the
  // candidate's uid after a privilege drop, like /tmp.
  const scratch = pool.launch.isolation.mode === 'fallback' ? mkdtempSync(join(tmpdir(), 'evochamber-sandbox-')) : null;
  if (scratch) chmodSync(scratch, 0o711);
  const env = scratch ? { ...spec.env, TMPDIR: scratch } : { ...spec.env };
  const proc = spawn(spec.command, [...spec.args], { detached: true, stdio: ['pipe', 'pipe', 'pipe'], env, cwd: tmpdir() });
  let markExited = (): void => {};
  const exited = new Promise<void>((res) => { markExited = res; });
  const w: Worker = { proc, uid, checker: null, ready: false, job: null, retired: false, dead: false, buf: '', stderr: '', exited, markExited, scratch };
  pool.workers.push(w);
  hold(w, true); // only spawned when a job is waiting; released once ready and idle
  proc.stdout.setEncoding('utf8');
  proc.stderr.setEncoding('utf8');
  proc.stdout.on('data', (chunk: string) => onData(pool, w, chunk));
  proc.stderr.on('data', (chunk: string) => { w.stderr = (w.stderr + chunk).slice(-2000); });
  proc.stdin.on('error', () => {}); // EPIPE after a crash; the exit handler reports it
  proc.on('error', (err) => onDeath(pool, w, `could not start (${err.message})`));
  proc.on('exit', (code, signal) => onDeath(pool, w, signal ? `killed by ${signal}` : `exited with code ${code}`));
}

function onData(pool: PoolState, w: Worker, chunk: string): void {
  if (w.retired) return;
  if (w.buf.length + chunk.length > MAX_LINE) return killGroup(w); // replies are capped far below this
  for (const line of takeLines(w, chunk)) {
    let msg: WorkerReply & { ready?: unknown };
    try {
      msg = JSON.parse(line) as WorkerReply & { ready?: unknown };
    } catch {
      msg = {};
    }
    if (!onWorkerLine(pool, w, msg)) return;
  }
  pool.pump();
}

/** One line from a worker, taken only when it fits where its job stands. False once the worker is given up. */
function onWorkerLine(pool: PoolState, w: Worker, msg: WorkerReply & { ready?: unknown }): boolean {
  const job = w.job;
  const ours = job !== null && msg.id === job.id;
  if (msg.ready === true && !w.ready) {
    w.ready = true;
    pool.startFailures = 0;
    hold(w, false);
  } else if (ours && 'loaded' in msg && job.relay === 'loading') {
    onLoaded(pool, w, job, msg.loaded);
  } else if (ours && 'ret' in msg && job.relay === 'calling') {
    relayAnswer(pool, w, job, msg);
    if (w.job !== job) return false;
  } else if (ours && 'cb' in msg && job.relay === 'calling') {
    relayCallBack(pool, w, job, msg);
    if (w.job !== job) return false;
  } else if (ours && !('loaded' in msg) && !('ret' in msg) && !('cb' in msg) && (job.relay === 'none' || job.relay === 'ending')) {
    w.job = null;
    clearTimeout(job.timer);
    hold(w, false);
    job.resolve(toResult(job, msg));
  } else {
    // Anything else means the protocol is broken (or forged): this worker cannot be trusted.
    killGroup(w);
    return false;
  }
  return true;
}

function onDeath(pool: PoolState, w: Worker, reason: string): void {
  if (w.dead) return;
  w.dead = true;
  killChecker(w);
  // No group kill here: the pid is already reaped and could be reused. Leftovers die with their
  // namespace (bwrap --die-with-parent, unshare --kill-child) or sit in the candidate's own group.
  w.retired = true;
  pool.workers.splice(pool.workers.indexOf(w), 1);
  if (w.scratch) rmSync(w.scratch, { recursive: true, force: true });
  w.markExited();
  const tail = w.stderr.trim().split('\n').slice(-2).join(' | ');
  if (!w.ready && !pool.closing && ++pool.startFailures >= MAX_START_FAILURES) {
    pool.broken = `sandbox workers fail to start (${reason})${tail ? `: ${tail}` : ''}`;
    for (const queued of pool.queue.splice(0)) queued.resolve(failed(queued, pool.broken, true));
  }
  if (w.job) {
    const job = w.job;
    w.job = null;
    clearTimeout(job.timer);
    job.resolve(failed(job, pool.closing ? 'sandbox closed' : `sandbox worker ${reason} during the job`, pool.closing !== null));
  }
  pool.pump();
}
