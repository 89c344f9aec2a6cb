import { existsSync, rmSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import { UnrecoverableError, Worker, type Job } from 'bullmq';
import { runScenario, type RunOptions, type RunResult } from '../run/run-scenario';
import { parseScenario, type LoadedScenario } from '../scenario/scenario';
import { applyScenarioPatch } from '../scenario/apply-patch';
import { mergePatches } from '../../core/scenario-patch';
import { createSharedBackend, type SharedBackend } from './shared-backend';
import { SWEEP_PREFIX, SWEEP_QUEUE, sweepRunDirName } from './queue-names';
import { closeRedis, openRedis, probeRedis } from './redis-connection';
import type { RedisTarget } from './redis-target';
import { sweepJobSchema, type SweepJobResult } from './sweep-job';

/**
 * Continue a run from the directory an earlier attempt left (the run-resume feature). Given to
 * `startSweepWorker` as `resume`: a job retaken after its worker died calls it when the run
 * directory exists (a shared `runsRoot`); without it the job restarts from scratch.
 */
export type ResumeRun = (loaded: LoadedScenario, runDir: string, opts: RunOptions) => Promise<RunResult>;

/** Options of a sweep worker. */
export interface SweepWorkerOptions {
  readonly target: RedisTarget;
  /**
   * Jobs at once in this process (default 1). Jobs over HTTP share one endpoint pool per model
   * section (one cap per endpoint across them), and with more than one at once they run with
   * speculative completion off, as a local sweep over one pool does.
   */
  readonly concurrency?: number;
  /** Where run directories go (default `runs`); point every worker at a shared directory when there is one. */
  readonly runsRoot?: string;
  /** BullMQ lock duration in ms: a job whose worker stops renewing its lock this long is stalled (default 30000). */
  readonly lockMs?: number;
  /** BullMQ stalled-job check interval in ms: how often this worker looks for stalled jobs to take back (default 30000). */
  readonly stalledCheckMs?: number;
  /** Times a job may stall (its worker died) and be retaken before it fails (default 2). */
  readonly maxStalls?: number;
  /** Resume a run directory left by a dead worker instead of restarting (see `ResumeRun`). */
  readonly resume?: ResumeRun;
  /** One line per job event, for the operator. */
  readonly log?: (line: string) => void;
  /** Told once when the worker cannot go on (Redis lost for good). */
  readonly onFatal?: (line: string) => void;
}

/** A running sweep worker. */
export interface SweepWorker {
  /** `host:pid`, as recorded in each job's result. */
  readonly id: string;
  /** Stop taking jobs; wait for the active ones unless `force` (those then stall and go to another worker). */
  close(force?: boolean): Promise<void>;
}

function firstLine(err: unknown): string {
  return String((err as Error)?.message ?? err).split('\n')[0]!;
}

/**
 * Start a worker that takes sweep jobs from the queue and runs them. Rejects at once with
 * `RedisUnreachableError` when Redis cannot be reached. Never throws for one failed job: the job
 * fails (BullMQ retries it up to the attempts it was enqueued with) and the worker goes on.
 */
export async function startSweepWorker(opts: SweepWorkerOptions): Promise<SweepWorker> {
  await probeRedis(opts.target);
  const log = opts.log ?? (() => {});
  const host = hostname();
  const id = `${host}:${process.pid}`;
  const runsRoot = path.resolve(opts.runsRoot ?? 'runs');
  const connection = openRedis(opts.target, (line) => opts.onFatal?.(line));
  // One pool per model section for this worker's jobs: the cap per endpoint holds across them.
  const pools = new Map<string, SharedBackend>();
  const sharedFor = (loaded: LoadedScenario): SharedBackend | undefined => {
    if (loaded.scenario.model.backend !== 'openai') return undefined;
    const key = JSON.stringify(loaded.scenario.model);
    let shared = pools.get(key);
    if (!shared) pools.set(key, (shared = createSharedBackend(loaded.scenario)));
    return shared;
  };
  const concurrency = opts.concurrency ?? 1;

  const runJob = async (job: Job): Promise<SweepJobResult> => {
    const parsed = sweepJobSchema.safeParse(job.data);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new UnrecoverableError(`malformed job data: ${issue.path.join('.') || '(root)'}: ${issue.message}`);
    }
    const d = parsed.data;
    // Validated again here: the job may come from another version, or name a dataset this machine lacks
    // (retried: another worker may have it).
    const asQueued = parseScenario(d.scenario, `${d.scenarioFile} (job ${job.id})`, d.scenarioDir);
    // The run as it will be made: its backend (shared with this worker's other runs) is read from it.
    const asRun = applyScenarioPatch(asQueued, d.patch);
    const shared = sharedFor(asRun);
    const specOff = shared && concurrency > 1 && asRun.scenario.structures.speculative;
    const runDir = path.join(runsRoot, sweepRunDirName(asQueued.scenario.name, d.sweepId, d.variant, d.seed));
    let last = 0;
    const runOpts: RunOptions = {
      patch: mergePatches(d.patch, { variant: d.variant, seed: d.seed }, specOff ? { 'structures.speculative': false } : {}), outDir: runDir,
      ...(shared ? { shared: { backend: shared, key: `${d.variant}/${d.seed}` } } : {}),
      onProgress: (p) => {
        const pct = Math.floor((100 * p.done) / Math.max(1, p.total));
        if (pct >= last + 10 || p.done === p.total) {
          last = pct;
          job.updateProgress({ done: p.done, total: p.total }).catch(() => {});
        }
      },
    };
    const resumed = existsSync(runDir) && opts.resume !== undefined;
    log(`job ${job.id} active: ${d.variant} seed ${d.seed} (attempt ${job.attemptsStarted}${existsSync(runDir) ? (resumed ? ', resuming' : ', restarting') : ''}) → ${runDir}`);
    if (!resumed) rmSync(runDir, { recursive: true, force: true });
    const { summary } = resumed ? await opts.resume!(asQueued, runDir, runOpts) : await runScenario(asQueued, runOpts);
    log(`job ${job.id} done: accuracy ${summary.accuracy.toFixed(3)}`);
    return { summary: summary as unknown as SweepJobResult['summary'], host, runDir, worker: id, resumed };
  };

  const worker = new Worker(SWEEP_QUEUE, runJob, {
    connection, prefix: SWEEP_PREFIX, name: id,
    concurrency,
    lockDuration: opts.lockMs ?? 30_000,
    stalledInterval: opts.stalledCheckMs ?? 30_000,
    maxStalledCount: opts.maxStalls ?? 2,
  });
  worker.on('failed', (job, err) => { if (job) log(`job ${job.id} failed (attempt ${job.attemptsMade}): ${firstLine(err)}`); });
  worker.on('error', (err) => log(`worker error: ${firstLine(err)}`));
  await worker.waitUntilReady();
  return {
    id,
    async close(force = false) {
      await worker.close(force);
      await closeRedis(connection);
      await Promise.all([...pools.values()].map((p) => p.close()));
    },
  };
}
