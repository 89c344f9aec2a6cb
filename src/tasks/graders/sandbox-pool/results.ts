/**
 * What a sandbox job comes back as: a failed result when the harness gave up on it, or the
 * worker's final reply read strictly (every field checked, a protocol violation voids the job).
 */
import { decodePlain } from '../plain-value';
import type { ProbeOutcome } from '../test-plan';
import type { Job, SandboxJob, SandboxResult, TestOutcome } from './job';

/** The result of a job that never got a verdict: every probe unanswered, every script not run. */
export function failed(job: SandboxJob, failure: string, infrastructure: boolean): SandboxResult {
  return {
    probes: (job.probes ?? []).map(() => null),
    scripts: (job.scripts ?? []).map((test) => ({ test, passed: false, output: `not run: ${failure}` })),
    loadError: null, timedOut: false, exit: null, violation: null, failure, infrastructure, touched: [],
  };
}

/** A worker's line, before it is checked. */
export interface WorkerReply {
  id?: unknown;
  loaded?: unknown;
  ret?: unknown;
  cb?: unknown;
  out?: unknown;
  error?: unknown;
  load?: unknown;
  probes?: unknown;
  scripts?: unknown;
  timedOut?: unknown;
  exit?: unknown;
  violation?: unknown;
  touched?: unknown;
}

/** The sources the worker says the candidate touched; `unreported` when its reply does not say. */
function toTouched(raw: unknown): string[] {
  return Array.isArray(raw) && raw.every((t) => typeof t === 'string') ? (raw as string[]) : ['unreported'];
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

/** The job's result from the worker's final reply and the checker's verdicts on its scripts. */
export function toResult(job: Job, msg: WorkerReply): SandboxResult {
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
  return { probes, scripts, loadError, timedOut, exit, violation, failure: null, infrastructure: false, touched: toTouched(msg.touched) };
}
