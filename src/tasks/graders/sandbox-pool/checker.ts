/**
 * A worker's trusted checker (sandbox/sandbox_checker.py, outside the worker's sandbox) and the
 * relay between the two: the worker loads a candidate, the checker runs the job's script tests and
 * each call they make to a candidate function goes to the worker and its answer back, as plain
 * data, one at a time and only in turn (`Job.relay`).
 */
import { spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import { failJob, hold, takeLines, type Checker, type Job, type PoolState, type Worker } from './state';

/** The worker has loaded the candidate for the scripts: hand them, and its names, to the checker. */
export function onLoaded(pool: PoolState, w: Worker, job: Job, loaded: unknown): void {
  const l = (typeof loaded === 'object' && loaded !== null ? loaded : {}) as { load?: unknown; names?: unknown; values?: unknown };
  const names = Array.isArray(l.names) ? l.names.filter((n): n is string => typeof n === 'string') : [];
  if (l.load !== null) {
    job.relay = 'ending';
    w.proc.stdin.write(`${JSON.stringify({ id: job.id, end: true })}\n`);
    return;
  }
  job.relay = 'checking';
  const c = (w.checker ??= spawnChecker(pool, w));
  const values = typeof l.values === 'object' && l.values !== null && !Array.isArray(l.values) ? l.values : {};
  c.proc.stdin.write(`${JSON.stringify({ job: job.id, tests: job.scripts, names, values, helpers: job.helpers, cpuMs: pool.timeoutMs })}\n`);
}

/** The candidate's answer to the checker's call: plain JSON, decoded strictly by the checker. */
export function relayAnswer(pool: PoolState, w: Worker, job: Job, msg: { ret?: unknown; out?: unknown }): void {
  if (!w.checker || w.checker.dead) return failJob(pool, w, 'test checker ended during the job');
  job.relay = job.nested.pop() ?? 'checking';
  w.checker.proc.stdin.write(`${JSON.stringify({ ret: msg.ret, out: typeof msg.out === 'string' ? msg.out : '' })}\n`);
}

/** The candidate's call of a test's function (a callable the test passed it): the checker runs it. */
export function relayCallBack(pool: PoolState, w: Worker, job: Job, msg: { cb?: unknown }): void {
  if (!w.checker || w.checker.dead) return failJob(pool, w, 'test checker ended during the job');
  job.nested.push('calling');
  job.relay = 'callback';
  w.checker.proc.stdin.write(`${JSON.stringify({ cb: msg.cb })}\n`);
}

/** Start the worker's checker (on its first script job); it lives as long as the worker. */
function spawnChecker(pool: PoolState, w: Worker): Checker {
  const spec = pool.launch.checker;
  const proc = spawn(spec.command, [...spec.args], { detached: true, stdio: ['pipe', 'pipe', 'pipe'], env: { ...spec.env }, cwd: tmpdir() });
  let markExited = (): void => {};
  const exited = new Promise<void>((res) => { markExited = res; });
  const c: Checker = { proc, exited, reaped: false, buf: '', dead: false, ready: false, stderr: '' };
  pool.checkers.add(c);
  const reaped = (): void => {
    c.reaped = true;
    pool.checkers.delete(c);
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
    if (w.job) failJob(pool, w, c.ready ? 'test checker ended during the job' : `test checker failed to start${tail ? `: ${tail}` : ''}`, !c.ready);
  };
  proc.on('error', gone);
  proc.on('exit', gone);
  proc.stdout.on('data', (chunk: string) => {
    for (const line of takeLines(c, chunk)) if (!onCheckerLine(pool, w, c, line)) return;
  });
  hold({ proc, checker: null }, w.job !== null);
  return c;
}

/** One line from the checker: ready, a call for the candidate, or its verdicts. False once the job has failed. */
function onCheckerLine(pool: PoolState, w: Worker, c: Checker, line: string): boolean {
  let msg: { job?: unknown; call?: unknown; cbret?: unknown; done?: unknown; ready?: unknown };
  try {
    msg = JSON.parse(line) as typeof msg;
  } catch {
    return true;
  }
  if (msg.ready === true) {
    c.ready = true;
    return true;
  }
  const job = w.job;
  if (!job || w.checker !== c || msg.job !== job.id) return true;
  if ('call' in msg && (job.relay === 'checking' || job.relay === 'callback')) {
    job.nested.push(job.relay);
    job.relay = 'calling';
    w.proc.stdin.write(`${JSON.stringify({ id: job.id, call: msg.call })}\n`);
  } else if ('cbret' in msg && job.relay === 'callback') {
    job.relay = job.nested.pop() ?? 'calling';
    w.proc.stdin.write(`${JSON.stringify({ id: job.id, cbret: msg.cbret })}\n`);
  } else if (Array.isArray(msg.done) && job.relay === 'checking' && job.nested.length === 0) {
    job.relay = 'ending';
    job.checked = msg.done as unknown[];
    w.proc.stdin.write(`${JSON.stringify({ id: job.id, end: true })}\n`);
  } else {
    failJob(pool, w, 'test checker out of step with the worker');
    return false;
  }
  return true;
}
