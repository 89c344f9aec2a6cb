/**
 * A small pool of long-lived Python sandbox workers (see sandbox/sandbox_worker.py for the protocol and
 * docs/sandbox-threat-model.md for what it guards against). Jobs travel as JSON lines; each
 * worker runs one job at a time and extra jobs queue. A job's script tests run in the worker's
 * trusted checker (sandbox/sandbox_checker.py, its own process outside the sandbox): this pool relays
 * each call the checker makes to the worker and the candidate's plain-data answer back. A worker
 * that crashes or stops answering is killed (whole process group, and its checker) and replaced;
 * its job comes back as a failed result.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { planWorkerLaunch, type SandboxIsolation, type WorkerLaunch } from './sandbox-isolation';
import { decodePlain } from './plain-value';
import type { ProbeCall, ProbeOutcome } from './test-plan';

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

/** One candidate and what to run against it. */
export interface SandboxJob {
  readonly code: string;
  /** Statements run once after the candidate loads, before the probes (the tests' imports). */
  readonly setup?: string;
  /** Calls answered one at a time by the candidate's process; values come back as plain data. */
  readonly probes?: readonly ProbeCall[];
  /**
   * Arbitrary test programs, run in the trusted checker process (sandbox/sandbox_checker.py); each call
   * they make to a candidate function is answered, as plain data, by the candidate's process.
   */
  readonly scripts?: readonly string[];
  /**
   * The task's own definitions its tests call, as JSON `[source, entry point]` (code-grader.ts
   * `taskHelpers`): the checker runs them beside each script test, never the candidate's copies.
   */
  readonly helpers?: string;
}

/** Outcome of one script test. */
export interface TestOutcome {
  readonly test: string;
  readonly passed: boolean;
  /** Captured stdout/stderr plus the exception, truncated; or why the test did not run. */
  readonly output: string;
}

/** Outcome of one job. Exactly one per `run()` call, even when a worker dies mid-job. */
export interface SandboxResult {
  /** One per probe: its value or exception, or null when it never answered. */
  readonly probes: readonly (ProbeOutcome | null)[];
  /** One per script test. */
  readonly scripts: readonly TestOutcome[];
  /** Exception raised while defining the candidate (e.g. "SyntaxError: … (line 3)"), else null. */
  readonly loadError: string | null;
  /** The candidate used up its CPU time (or slept past the wall backstop) and was killed. */
  readonly timedOut: boolean;
  /** How the candidate process ended abnormally ("killed by SIGXCPU", "exited with status 3"), else null. */
  readonly exit: string | null;
  /** The candidate broke the report protocol (forged, extra or malformed record): everything fails. */
  readonly violation: string | null;
  /** Failure outside the candidate's normal run: worker crashed, stopped answering, pool closed. */
  readonly failure: string | null;
  /** True when `failure` is the harness's own (pool broken, sandbox error), not the candidate's doing. */
  readonly infrastructure: boolean;
}

/** Handle to a running pool. `run` never rejects; `close` is idempotent. */
export interface SandboxPool {
  readonly isolation: SandboxIsolation;
  readonly timeoutMs: number;
  run(job: SandboxJob): Promise<SandboxResult>;
  /** OS pids of live worker processes (the bwrap/unshare wrapper when there is one); diagnostics only. */
  workerPids(): number[];
  close(): Promise<void>;
}

interface Job extends Required<SandboxJob> {
  readonly id: number;
  readonly resolve: (r: SandboxResult) => void;
  timer?: ReturnType<typeof setTimeout>;
  /** The checker's verdicts on the scripts, once it has run them. */
  checked?: unknown[];
  /**
   * Where the relay between worker and checker stands: `none` (no scripts), `loading` (the
   * worker is loading the candidate), `checking` (the checker runs the tests; `calling` while
   * one call awaits the candidate's answer), `ending` (the final reply is due). A worker line
   * that does not fit the state fails the job: no message can be slipped in out of turn.
   */
  relay: 'none' | 'loading' | 'checking' | 'calling' | 'ending';
}

/** The trusted process that runs a worker's script tests (one per worker, started on first use). */
interface Checker {
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

interface Worker {
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

/**
 * How long a closing pool, or a checker being stopped, waits for its processes to end on their own
 * (stdin closed: a worker ends its candidates and exits, bubblewrap and unshare reap what they
 * started) before it kills their process groups. A group kill leaves a sandbox's inner processes to
 * the host's init, as zombies until it reaps them.
 */
const STOP_GRACE_MS = 2000;

/** Sync killers of every open pool's processes, run when Node exits without closing them (a second Ctrl-C). */
const openPools = new Set<() => void>();
let exitHook = false;

function killGroupNow(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

/** A worker that dies this many times in a row before saying "ready" marks the pool broken. */
const MAX_START_FAILURES = 3;
const MAX_LINE = 16 * 1024 * 1024;
/** Default wall backstop: a candidate on a machine ten times oversubscribed still gets its CPU time. */
const DEFAULT_WALL_FACTOR = 10;
/**
 * Candidates of one worker run under a uid no other worker of any pool in this process uses (RLIMIT_NPROC
 * counts per uid): a high range, offset by the Node pid so two processes on one host rarely meet.
 */
const UID_BASE = 200_000 + (process.pid % 4096) * 256;
let uidCounter = 0;

function failed(job: SandboxJob, failure: string, infrastructure: boolean): SandboxResult {
  return {
    probes: (job.probes ?? []).map(() => null),
    scripts: (job.scripts ?? []).map((test) => ({ test, passed: false, output: `not run: ${failure}` })),
    loadError: null, timedOut: false, exit: null, violation: null, failure, infrastructure,
  };
}

/**
 * Idle workers must not keep Node alive (a forgotten `close()` would hang the process), but a
 * worker that is starting for a queued job, or running one, must: its reply is awaited.
 */
function hold(w: Pick<Worker, 'proc' | 'checker'>, on: boolean): void {
  const procs = w.checker && !w.checker.dead ? [w.proc, w.checker.proc] : [w.proc];
  for (const h of procs.flatMap((p) => [p, p.stdout, p.stdin, p.stderr]) as unknown[]) {
    const handle = h as { ref?: () => void; unref?: () => void };
    if (on) handle.ref?.();
    else handle.unref?.();
  }
}

interface WorkerReply {
  id?: unknown;
  loaded?: unknown;
  ret?: unknown;
  out?: unknown;
  error?: unknown;
  load?: unknown;
  probes?: unknown;
  scripts?: unknown;
  timedOut?: unknown;
  exit?: unknown;
  violation?: unknown;
}

function toProbe(raw: unknown): ProbeOutcome | null {
  if (typeof raw !== 'object' || raw === null) return null;
  const r = raw as { v?: unknown; err?: unknown };
  if ('v' in r) {
    const value = decodePlain(r.v);
    return value ? { value, raw: r.v } : { error: 'not plain data: the answer did not decode' };
  }
  return typeof r.err === 'string' ? { error: r.err } : null;
}

function toResult(job: Job, msg: WorkerReply): SandboxResult {
  if (typeof msg.error === 'string') return failed(job, `sandbox error: ${msg.error}`, true);
  const timedOut = msg.timedOut === true;
  const exit = typeof msg.exit === 'string' ? msg.exit : null;
  const loadError = typeof msg.load === 'string' ? msg.load : null;
  const violation = typeof msg.violation === 'string' ? msg.violation : null;
  const rawProbes = Array.isArray(msg.probes) ? (msg.probes as unknown[]) : [];
  const rawScripts = job.checked ?? [];
  const why = violation ? `protocol violation (${violation})` : timedOut ? 'timeout' : exit ? `candidate ${exit}` : loadError ? 'candidate failed to load' : 'candidate exited before reporting';
  // A violation voids every record of the job: whatever came before it may be forged too.
  const probes = job.probes.map((_, i) => (violation ? null : toProbe(rawProbes[i])));
  const scripts = job.scripts.map((test, i): TestOutcome => {
    const r = violation ? null : (rawScripts[i] as { ok?: unknown; out?: unknown } | null | undefined);
    return r && typeof r === 'object' ? { test, passed: r.ok === true, output: String(r.out ?? '') } : { test, passed: false, output: `not run: ${why}` };
  });
  return { probes, scripts, loadError, timedOut, exit, violation, failure: null, infrastructure: false };
}

/** Start a pool. Throws right away when python3 is missing; workers themselves start lazily. */
export function createSandboxPool(opts: SandboxOptions = {}): SandboxPool {
  const size = Math.max(1, Math.floor(opts.workers ?? 2));
  const timeoutMs = Math.max(1, opts.timeoutMs ?? 2000);
  const memoryMb = Math.max(32, opts.memoryMb ?? 512);
  const wallMs = Math.ceil(timeoutMs * Math.max(1, opts.wallFactor ?? DEFAULT_WALL_FACTOR));
  // The worker enforces both limits itself; this deadline only catches a worker that stopped
  // answering. Probes and scripts each run at most wallMs of wall time, hence twice it plus a margin.
  const hardDeadlineMs = 2 * wallMs + Math.max(2000, timeoutMs);
  const launch: WorkerLaunch = planWorkerLaunch({ python: opts.python, isolation: opts.isolation, allowUnsandboxed: opts.allowUnsandboxed });
  const workers: Worker[] = [];
  const queue: Job[] = [];
  let nextId = 1;
  let startFailures = 0;
  let broken: string | null = null;
  let closing: Promise<void> | null = null;
  /** Every checker not yet reaped, its worker's or one being stopped: close() waits for them all. */
  const checkers = new Set<Checker>();
  const killAllNow = (): void => {
    for (const w of workers) if (!w.dead) killGroupNow(w.proc.pid);
    for (const c of checkers) if (!c.reaped) killGroupNow(c.proc.pid);
  };
  openPools.add(killAllNow);
  if (!exitHook) {
    exitHook = true;
    process.on('exit', () => { for (const kill of openPools) kill(); });
  }

  /** Stop the worker's checker: it is trusted, so first ask (end its stdin), then kill its group after the grace. */
  function killChecker(w: Worker): void {
    const c = w.checker;
    w.checker = null;
    if (!c || c.dead || c.proc.pid === undefined) return;
    c.dead = true;
    c.proc.stdin.end();
    const timer = setTimeout(() => { if (!c.reaped) killGroupNow(c.proc.pid); }, STOP_GRACE_MS);
    timer.unref();
    void c.exited.then(() => clearTimeout(timer));
  }

  /** The worker has loaded the candidate for the scripts: hand them, and its names, to the checker. */
  function onLoaded(w: Worker, job: Job, loaded: unknown): void {
    const l = (typeof loaded === 'object' && loaded !== null ? loaded : {}) as { load?: unknown; names?: unknown; values?: unknown };
    const names = Array.isArray(l.names) ? l.names.filter((n): n is string => typeof n === 'string') : [];
    if (l.load !== null) {
      job.relay = 'ending';
      w.proc.stdin.write(`${JSON.stringify({ id: job.id, end: true })}\n`);
      return;
    }
    job.relay = 'checking';
    const c = (w.checker ??= spawnChecker(w));
    const values = typeof l.values === 'object' && l.values !== null && !Array.isArray(l.values) ? l.values : {};
    c.proc.stdin.write(`${JSON.stringify({ job: job.id, tests: job.scripts, names, values, helpers: job.helpers, cpuMs: timeoutMs })}\n`);
  }

  function spawnChecker(w: Worker): Checker {
    const spec = launch.checker;
    const proc = spawn(spec.command, [...spec.args], { detached: true, stdio: ['pipe', 'pipe', 'pipe'], env: { ...spec.env }, cwd: tmpdir() });
    let markExited = (): void => {};
    const exited = new Promise<void>((res) => { markExited = res; });
    const c: Checker = { proc, exited, reaped: false, buf: '', dead: false, ready: false, stderr: '' };
    checkers.add(c);
    const reaped = (): void => {
      c.reaped = true;
      checkers.delete(c);
      markExited();
    };
    proc.once('exit', reaped);
    proc.once('error', () => { if (proc.pid === undefined) reaped(); });
    proc.stdout.setEncoding('utf8');
    proc.stderr.setEncoding('utf8');
    proc.stderr.on('data', (chunk: string) => { c.stderr = (c.stderr + chunk).slice(-500); });
    proc.stdin.on('error', () => {});
    const gone = (): void => {
      if (c.dead) return;
      c.dead = true;
      if (w.checker === c) w.checker = null;
      const tail = c.stderr.trim().split('\n').pop() ?? '';
      if (w.job) failJob(w, c.ready ? 'test checker ended during the job' : `test checker failed to start${tail ? `: ${tail}` : ''}`, !c.ready);
    };
    proc.on('error', gone);
    proc.on('exit', gone);
    proc.stdout.on('data', (chunk: string) => {
      c.buf += chunk;
      let nl: number;
      while ((nl = c.buf.indexOf('\n')) >= 0) {
        const line = c.buf.slice(0, nl);
        c.buf = c.buf.slice(nl + 1);
        let msg: { job?: unknown; call?: unknown; done?: unknown };
        try {
          msg = JSON.parse(line) as typeof msg;
        } catch {
          continue;
        }
        if ((msg as { ready?: unknown }).ready === true) {
          c.ready = true;
          continue;
        }
        const job = w.job;
        if (!job || w.checker !== c || msg.job !== job.id) continue;
        if ('call' in msg && job.relay === 'checking') {
          job.relay = 'calling';
          w.proc.stdin.write(`${JSON.stringify({ id: job.id, call: msg.call })}\n`);
        } else if (Array.isArray(msg.done) && job.relay === 'checking') {
          job.relay = 'ending';
          job.checked = msg.done as unknown[];
          w.proc.stdin.write(`${JSON.stringify({ id: job.id, end: true })}\n`);
        } else {
          failJob(w, 'test checker out of step with the worker');
          return;
        }
      }
    });
    hold({ proc, checker: null }, w.job !== null);
    return c;
  }

  /** Give up on the worker's job (the worker is killed: it may be waiting on a relay that never comes). */
  function failJob(w: Worker, why: string, infrastructure = false): void {
    const job = w.job;
    if (!job) return;
    w.job = null;
    clearTimeout(job.timer);
    killGroup(w);
    job.resolve(failed(job, why, infrastructure));
    pump();
  }

  function killGroup(w: Worker): void {
    killChecker(w);
    w.retired = true;
    const pid = w.proc.pid;
    if (pid === undefined) return;
    try {
      process.kill(-pid, 'SIGKILL'); // detached: the worker leads its own process group
    } catch {
      // already gone
    }
  }

  function spawnWorker(): void {
    const uid = UID_BASE + (uidCounter++ % 256);
    const spec = launch.worker(uid);
    // Without bubblewrap the worker's per-job directories (cand-*) are on the host's disk, and a
    // worker killed by close() or a timeout cannot remove the ones it made ahead. They go in a
    // directory of its own that is removed when it dies. Traversable (not listable) by the
    // candidate's uid after a privilege drop, like /tmp.
    const scratch = launch.isolation.mode === 'fallback' ? mkdtempSync(join(tmpdir(), 'evochamber-sandbox-')) : null;
    if (scratch) chmodSync(scratch, 0o711);
    const env = scratch ? { ...spec.env, TMPDIR: scratch } : { ...spec.env };
    const proc = spawn(spec.command, [...spec.args], { detached: true, stdio: ['pipe', 'pipe', 'pipe'], env, cwd: tmpdir() });
    let markExited = (): void => {};
    const exited = new Promise<void>((res) => { markExited = res; });
    const w: Worker = { proc, uid, checker: null, ready: false, job: null, retired: false, dead: false, buf: '', stderr: '', exited, markExited, scratch };
    workers.push(w);
    hold(w, true); // only spawned when a job is waiting; released once ready and idle
    proc.stdout.setEncoding('utf8');
    proc.stderr.setEncoding('utf8');
    proc.stdout.on('data', (chunk: string) => onData(w, chunk));
    proc.stderr.on('data', (chunk: string) => { w.stderr = (w.stderr + chunk).slice(-2000); });
    proc.stdin.on('error', () => {}); // EPIPE after a crash; the exit handler reports it
    proc.on('error', (err) => onDeath(w, `could not start (${err.message})`));
    proc.on('exit', (code, signal) => onDeath(w, signal ? `killed by ${signal}` : `exited with code ${code}`));
  }

  function onData(w: Worker, chunk: string): void {
    if (w.retired) return;
    w.buf += chunk;
    if (w.buf.length > MAX_LINE) return killGroup(w); // replies are capped far below this
    let nl: number;
    while ((nl = w.buf.indexOf('\n')) >= 0) {
      const line = w.buf.slice(0, nl);
      w.buf = w.buf.slice(nl + 1);
      let msg: WorkerReply & { ready?: unknown };
      try {
        msg = JSON.parse(line) as WorkerReply & { ready?: unknown };
      } catch {
        msg = {};
      }
      if (msg.ready === true && !w.ready) {
        w.ready = true;
        startFailures = 0;
        hold(w, false);
      } else if (w.job && msg.id === w.job.id && 'loaded' in msg && w.job.relay === 'loading') {
        onLoaded(w, w.job, msg.loaded);
      } else if (w.job && msg.id === w.job.id && 'ret' in msg && w.job.relay === 'calling') {
        // The candidate's answer to the checker's call: plain JSON, decoded strictly by the checker.
        if (!w.checker || w.checker.dead) return failJob(w, 'test checker ended during the job');
        w.job.relay = 'checking';
        w.checker.proc.stdin.write(`${JSON.stringify({ ret: msg.ret, out: typeof msg.out === 'string' ? msg.out : '' })}\n`);
      } else if (w.job && msg.id === w.job.id && !('loaded' in msg) && !('ret' in msg) && (w.job.relay === 'none' || w.job.relay === 'ending')) {
        const job = w.job;
        w.job = null;
        clearTimeout(job.timer);
        hold(w, false);
        job.resolve(toResult(job, msg));
      } else {
        // Anything else means the protocol is broken (or forged): this worker cannot be trusted.
        killGroup(w);
        return;
      }
    }
    pump();
  }

  function onDeath(w: Worker, reason: string): void {
    if (w.dead) return;
    w.dead = true;
    killChecker(w);
    // No group kill here: the pid is already reaped and could be reused. Leftovers die with their
    // namespace (bwrap --die-with-parent, unshare --kill-child) or sit in the candidate's own group.
    w.retired = true;
    workers.splice(workers.indexOf(w), 1);
    if (w.scratch) rmSync(w.scratch, { recursive: true, force: true });
    w.markExited();
    const tail = w.stderr.trim().split('\n').slice(-2).join(' | ');
    if (!w.ready && !closing && ++startFailures >= MAX_START_FAILURES) {
      broken = `sandbox workers fail to start (${reason})${tail ? `: ${tail}` : ''}`;
      for (const job of queue.splice(0)) job.resolve(failed(job, broken, true));
    }
    if (w.job) {
      const job = w.job;
      w.job = null;
      clearTimeout(job.timer);
      job.resolve(failed(job, closing ? 'sandbox closed' : `sandbox worker ${reason} during the job`, closing !== null));
    }
    pump();
  }

  function pump(): void {
    if (closing || broken) return;
    for (;;) {
      const idle = workers.find((w) => w.ready && !w.job && !w.retired);
      if (!idle || queue.length === 0) break;
      dispatch(idle, queue.shift()!);
    }
    // Start as many workers as the backlog needs, up to the pool size (retired ones are on their way out).
    let alive = workers.filter((w) => !w.retired).length;
    let wanted = queue.length - workers.filter((w) => !w.ready && !w.retired).length;
    for (; wanted > 0 && alive < size; wanted--, alive++) spawnWorker();
  }

  function dispatch(w: Worker, job: Job): void {
    w.job = job;
    hold(w, true);
    job.timer = setTimeout(() => {
      if (w.job !== job) return;
      w.job = null;
      killGroup(w);
      job.resolve(failed(job, `timeout after ${timeoutMs} ms (sandbox worker stopped answering and was restarted)`, false));
      pump();
    }, hardDeadlineMs);
    w.proc.stdin.write(`${JSON.stringify({ id: job.id, code: job.code, setup: job.setup, probes: job.probes, calls: job.scripts.length > 0, timeoutMs, wallMs, memoryMb })}\n`);
  }

  return {
    isolation: launch.isolation,
    timeoutMs,
    run(spec) {
      return new Promise<SandboxResult>((resolve) => {
        if (closing) return resolve(failed(spec, 'sandbox closed', true));
        if (broken) return resolve(failed(spec, broken, true));
        const job = { code: spec.code, setup: spec.setup ?? '', probes: [...(spec.probes ?? [])], scripts: [...(spec.scripts ?? [])], helpers: spec.helpers ?? '' };
        queue.push({ id: nextId++, ...job, resolve, relay: job.scripts.length > 0 ? 'loading' : 'none' });
        pump();
      });
    },
    workerPids: () => workers.filter((w) => !w.dead && w.proc.pid !== undefined).map((w) => w.proc.pid!),
    close() {
      if (!closing) {
        closing = (async () => {
          for (const job of queue.splice(0)) job.resolve(failed(job, 'sandbox closed', true));
          const live = [...workers];
          for (const w of live) {
            hold(w, true); // an unref'd handle would let Node exit before the awaited 'exit' event
            killChecker(w);
            w.retired = true;
            // Asked to end: a worker whose stdin closes ends its candidates and exits, and bubblewrap
            // or unshare reap their inner processes; only one that has not ended after the grace is killed.
            w.proc.stdin.end();
          }
          const stopping = [...checkers];
          for (const c of stopping) hold({ proc: c.proc, checker: null }, true);
          const grace = setTimeout(() => {
            for (const w of live) if (!w.dead) killGroupNow(w.proc.pid);
            for (const c of stopping) if (!c.reaped) killGroupNow(c.proc.pid);
          }, STOP_GRACE_MS);
          await Promise.all([...live.map((w) => w.exited), ...stopping.map((c) => c.exited)]);
          clearTimeout(grace);
          openPools.delete(killAllNow);
        })();
      }
      return closing;
    },
  };
}
