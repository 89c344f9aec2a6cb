import { existsSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { checkOutputDir, recordOutputDir } from '../../store/output-dir';
import { ablationOutputs, aggregateAblation, planAblation, runKey, writeAblation, type AblationPlan, type AblationResult, type FailedRun } from './ablate';
import { systemClock, type Clock } from '../../core/clock';
import { parseScenario, type LoadedScenario } from '../scenario/scenario';
import { applyScenarioPatch, refuseScenarioOptions, SWEEP_SETTINGS } from '../scenario/apply-patch';
import { mergePatches, type ScenarioPatch } from '../../core/scenario-patch';
import type { RunSummary } from '../loop/summary';
import { newSweepId, SWEEP_PREFIX, SWEEP_QUEUE, sweepJobId, sweepRecordKey } from './queue-names';
import { closeRedis, openRedis, probeRedis } from './redis-connection';
import { RedisUnreachableError, type RedisTarget } from './redis-target';
import { SWEEP_SCHEMA_VERSION, sweepJobResultSchema, sweepRecordSchema, type SweepJob, type SweepJobResult, type SweepRecord } from './sweep-job';

/** Jobs and sweep records are kept this long in Redis, so a sweep can be re-attached after it ends. */
const KEEP_SECONDS = 30 * 24 * 3600;

/** Where a finished job's run lives, as its worker reported it. */
export type RunPlace = Pick<SweepJobResult, 'host' | 'runDir' | 'worker' | 'resumed'>;

/** What waiting on a sweep tells its caller. */
export interface SweepWatch {
  readonly target: RedisTarget;
  /** How often job states are read, ms (default 1000). */
  readonly pollMs?: number;
  /** Aborting stops waiting (the sweep goes on; re-attach later): the promise rejects with `SweepDetached`. */
  readonly signal?: AbortSignal;
  readonly onRunDone?: (variant: string, seed: number, summary: RunSummary, place: RunPlace) => void;
  readonly onRunFailed?: (failed: FailedRun) => void;
  /** Told whenever the number of runs under way or waiting for a worker changes. */
  readonly onStatus?: (status: SweepStatus) => void;
}

/** Where a sweep's runs stand. */
export interface SweepStatus {
  readonly finished: number;
  readonly failed: number;
  /** Runs a worker is on now. */
  readonly running: number;
  /** Runs waiting for a worker (or for a retry). */
  readonly waiting: number;
}

/** Options of a queued ablation: the local ablation's, plus the queue's. */
export interface QueuedAblationOptions extends SweepWatch {
  readonly variants?: readonly string[];
  readonly seeds?: number;
  /** What every run changes in the scenario, keyed by path; each run adds its variant and seed. */
  readonly patch?: ScenarioPatch;
  /** Where ablation.json goes on this machine (default runs/ablate-<scenario>-<sweep id>). */
  readonly outDir?: string;
  /** Attempts per job before it is reported failed (default 3). */
  readonly attempts?: number;
  /** First retry delay, ms, doubling after each failure (default 5000). */
  readonly retryDelayMs?: number;
  /** Stamps the sweep record (default: the system clock). */
  readonly clock?: Clock;
  /** Told the sweep id once every job is enqueued (for `--attach`). Workers may already be running them. */
  readonly onEnqueued?: (sweepId: string, jobs: number) => void;
  /**
   * Told once the scenario has been checked as the workers will see it, before any job exists:
   * nothing a worker does can have happened yet.
   */
  readonly onValidated?: (sweepId: string) => void | Promise<void>;
}

/** Waiting on a sweep was stopped by its caller; the jobs keep running. */
export class SweepDetached extends Error {
  override readonly name = 'SweepDetached';
  constructor(readonly sweepId: string) {
    super(`stopped waiting for sweep ${sweepId}; its jobs keep running`);
  }
}

interface Session {
  readonly connection: Redis;
  readonly queue: Queue;
  /** The line to report if the connection was lost for good. */
  lost?: string;
}

async function openSession(target: RedisTarget): Promise<Session> {
  await probeRedis(target);
  const session: { connection?: Redis; queue?: Queue; lost?: string } = {};
  session.connection = openRedis(target, (line) => { session.lost = line; });
  session.queue = new Queue(SWEEP_QUEUE, { connection: session.connection, prefix: SWEEP_PREFIX });
  session.queue.on('error', () => {});
  return session as Session;
}

async function closeSession(s: Session): Promise<void> {
  await s.queue.close().catch(() => {});
  await closeRedis(s.connection);
}

/**
 * Enqueue one job per (variant, seed) on the shared queue, wait for all of them, and write the
 * same ablation.json (and return the same result) as a local `runAblation`, with each run's host
 * and any runs that failed after their retries. The scenario travels inside the jobs.
 * Rejects with `RedisUnreachableError` (one line, no password) when Redis cannot be reached.
 */
export async function runQueuedAblation(loaded: LoadedScenario, opts: QueuedAblationOptions): Promise<AblationResult> {
  refuseScenarioOptions(opts, 'runQueuedAblation', SWEEP_SETTINGS);
  if (applyScenarioPatch(loaded, opts.patch).scenario.sweepBudget) {
    throw new Error(`${loaded.file}: sweepBudget: a sweep's budget applies to a local ablate, not to one queued on Redis (each run's own "budget" does)`);
  }
  // How a local sweep runs (sweep.*) means nothing to the queue's workers: said, not silently dropped.
  const local = Object.keys(applyScenarioPatch(loaded, opts.patch).scenario.sweep ?? {});
  if (local.length) {
    throw new Error(`${loaded.file}: sweep.${local[0]}: the sweep settings apply to a local ablate, not to one queued on Redis (each worker has --concurrency)`);
  }
  const id = newSweepId();
  const plan = planAblation(applyScenarioPatch(loaded, opts.patch), { variants: opts.variants, seeds: opts.seeds, outDir: opts.outDir, id });
  // ablation.json lands here when the sweep is done: never among a user's files.
  checkOutputDir(plan.outDir, { flag: '--out', names: ablationOutputs(plan), ownedBefore: (d) => existsSync(path.join(d, 'ablation.json')) });
  const patch = opts.patch ?? {};
  // Validate what travels, as the worker will see it, before anything is enqueued.
  const scenario: unknown = JSON.parse(JSON.stringify(loaded.scenario));
  const sent = parseScenario(scenario, loaded.file, loaded.dir);
  for (const variant of plan.variants) applyScenarioPatch(sent, mergePatches(patch, { variant, seed: plan.seedList[0] }));
  await opts.onValidated?.(id);

  const session = await openSession(opts.target);
  // Claimed once the queue answers: a sweep refused by Redis (a wrong password, no server) leaves no directory behind.
  recordOutputDir(plan.outDir, ablationOutputs(plan));
  try {
    const record: SweepRecord = {
      schemaVersion: SWEEP_SCHEMA_VERSION, id, scenario: plan.scenario, variants: [...plan.variants], seedList: [...plan.seedList],
      outDir: plan.outDir, createdAt: (opts.clock ?? systemClock).isoNow(),
    };
    await session.connection.set(sweepRecordKey(id), JSON.stringify(record), 'EX', KEEP_SECONDS);
    const attempts = opts.attempts ?? 3;
    await session.queue.addBulk(plan.variants.flatMap((variant) => plan.seedList.map((seed) => {
      const data: SweepJob = {
        schemaVersion: SWEEP_SCHEMA_VERSION, sweepId: id, variant, seed, patch,
        scenario, scenarioFile: loaded.file, scenarioDir: loaded.dir,
      };
      return {
        name: 'run', data,
        opts: {
          jobId: sweepJobId(id, variant, seed), attempts, backoff: { type: 'exponential', delay: opts.retryDelayMs ?? 5000 },
          removeOnComplete: { age: KEEP_SECONDS }, removeOnFail: { age: KEEP_SECONDS },
        },
      };
    })));
    opts.onEnqueued?.(id, plan.variants.length * plan.seedList.length);
    return await waitForSweep(session, id, plan, opts);
  } finally {
    await closeSession(session);
  }
}

/** Re-attach to a sweep under way (or finished, while Redis keeps it): wait for its jobs and write its ablation.json. */
export async function attachSweep(sweepId: string, opts: SweepWatch & { readonly outDir?: string }): Promise<AblationResult> {
  const session = await openSession(opts.target);
  try {
    const raw = await session.connection.get(sweepRecordKey(sweepId));
    if (raw === null) throw new Error(`no sweep "${sweepId}" in Redis at ${opts.target.shown} (ids are printed when a sweep is enqueued; records expire after 30 days)`);
    const parsed = sweepRecordSchema.safeParse(JSON.parse(raw));
    if (!parsed.success) throw new Error(`sweep "${sweepId}": its record was written by another version of evochamber (${parsed.error.issues[0]!.message})`);
    const r = parsed.data;
    const plan: AblationPlan = { scenario: r.scenario, variants: r.variants, seedList: r.seedList, outDir: opts.outDir === undefined ? r.outDir : path.resolve(opts.outDir) };
    return await waitForSweep(session, sweepId, plan, opts);
  } finally {
    await closeSession(session);
  }
}

async function waitForSweep(session: Session, sweepId: string, plan: AblationPlan, watch: SweepWatch): Promise<AblationResult> {
  const results = new Map<string, RunSummary>();
  const hosts = new Map<string, string>();
  const failed: FailedRun[] = [];
  const pending = new Map(plan.variants.flatMap((variant) => plan.seedList.map((seed) => [sweepJobId(sweepId, variant, seed), { variant, seed }] as const)));
  try {
    let shown = '';
    while (pending.size > 0) {
      if (watch.signal?.aborted) throw new SweepDetached(sweepId);
      let running = 0;
      for (const [jobId, { variant, seed }] of pending) {
        const fail = (error: string, attempts: number) => {
          const f: FailedRun = { variant, seed, error, attempts };
          failed.push(f);
          pending.delete(jobId);
          watch.onRunFailed?.(f);
        };
        // The state first, then the job: a job read before its state could be a snapshot from before it
        // finished (attempts, failure reason and result of an earlier attempt, or none), while the state
        // read after says it is done. A finished job no longer changes, so reading it after is final.
        const state = await session.queue.getJobState(jobId);
        if (state === 'active') running++;
        if (state !== 'failed' && state !== 'completed' && state !== 'unknown') continue;
        const job = await session.queue.getJob(jobId);
        if (state === 'unknown' || !job) { fail('job not in the queue (removed, or the queue was flushed)', 0); continue; }
        if (state === 'failed') fail(String(job.failedReason ?? 'failed').split('\n')[0]!, job.attemptsMade);
        else {
          const out = sweepJobResultSchema.safeParse(job.returnvalue);
          if (!out.success) { fail(`unreadable job result: ${out.error.issues[0]!.path.join('.')}: ${out.error.issues[0]!.message}`, job.attemptsMade); continue; }
          const { summary, ...place } = out.data;
          results.set(runKey(variant, seed), summary as unknown as RunSummary);
          hosts.set(runKey(variant, seed), place.host);
          pending.delete(jobId);
          watch.onRunDone?.(variant, seed, summary as unknown as RunSummary, place);
        }
      }
      const status: SweepStatus = { finished: results.size, failed: failed.length, running, waiting: pending.size - running };
      if (pending.size > 0 && JSON.stringify(status) !== shown) { shown = JSON.stringify(status); watch.onStatus?.(status); }
      if (pending.size > 0) await sleep(watch.pollMs ?? 1000, undefined, { signal: watch.signal }).catch(() => {});
    }
  } catch (err) {
    if (session.lost) throw new RedisUnreachableError(`${session.lost}; once it is back, re-attach with --attach ${sweepId}`);
    throw err;
  }
  // Failures in plan order, not in the order they were noticed, so the output does not depend on timing.
  const order = (f: FailedRun) => plan.variants.indexOf(f.variant) * plan.seedList.length + plan.seedList.indexOf(f.seed);
  const result = aggregateAblation(plan, results, { failed: failed.sort((a, b) => order(a) - order(b)), hosts });
  writeAblation(result);
  return result;
}
