import { fork, type ChildProcess } from 'node:child_process';
import { flushTracing } from '../../core/tracing/tracing';
import { VERDICTS } from '../../tasks/graders/code-grader';
import type { Progress } from '../loop/engine';
import type { BudgetStop } from '../loop/budget';
import { continueRun } from './continue-run';
import { runScenario, type RunOptions, type RunResult } from './run-scenario';
import { parseScenario } from '../scenario/scenario';
import type { RunSummary } from '../loop/summary';

/** The run options that cross to a worker process: plain data only. */
export type PortableRunOptions = Pick<RunOptions, 'patch' | 'graceMs' | 'journal' | 'logEvents'> & { readonly outDir: string };

/** One run for a worker process: the scenario as data, and how to run it. */
export interface ProcessJob {
  /** The validated scenario (a LoadedScenario's `scenario`), where it came from, and where its datasets are. */
  readonly config: unknown;
  readonly file: string;
  readonly dir: string;
  readonly opts: PortableRunOptions;
  /** Finish what a stopped process left in `opts.outDir` (an ablation's resume) instead of starting fresh. */
  readonly resume: boolean;
}

/** A code verdict one worker ran and kept, for the others' verdict caches (`VerdictCache.put`). */
type VerdictMessage = { readonly type: 'verdict'; readonly key: string; readonly value: unknown };
type ToChild = { readonly type: 'job'; readonly id: number; readonly job: ProcessJob } | { readonly type: 'stop' } | { readonly type: 'abandon' } | VerdictMessage;
type FromChild =
  | VerdictMessage
  | { readonly type: 'progress'; readonly id: number; readonly progress: Progress }
  | { readonly type: 'done'; readonly id: number; readonly summary: RunSummary; readonly runDir: string; readonly interrupted?: boolean; readonly budget?: BudgetStop }
  | { readonly type: 'failed'; readonly id: number; readonly error: string };

interface Child {
  readonly proc: ChildProcess;
  busy: boolean;
}

interface Pending {
  readonly resolve: (r: RunResult) => void;
  readonly reject: (e: Error) => void;
  readonly onProgress: ((p: Progress) => void) | undefined;
  readonly child: Child;
}

/**
 * A pool of worker processes that each run one run at a time (`ablate --jobs N`): runs of a sweep
 * share nothing but code verdicts (each one a worker runs and keeps is relayed to the others'
 * caches, as one process's runs share them), so the zero-time simulator's runs spread over every
 * core, each deterministic as in one process. `entry` is the script a worker runs: it registers the model plug-ins and calls
 * `serveRunJobs` (the CLI's `run-child`); a TypeScript entry is run through tsx. Stop requests are
 * relayed (a worker ignores SIGINT itself, so one Ctrl-C stops each run cleanly, once).
 */
export class RunProcesses {
  private readonly children: Child[] = [];
  private readonly pending = new Map<number, Pending>();
  private nextId = 0;
  private closed = false;
  /** Stops relaying this process's own verdicts (its runs, when it runs some of the sweep itself). */
  private readonly unrelay: () => void;

  constructor(private readonly entry: string, private readonly size: number) {
    this.unrelay = VERDICTS.onKept((key, value) => this.relay({ type: 'verdict', key, value }, null));
  }

  /** Run one job on an idle worker (started on demand); resolves with its result as runScenario does. */
  run(job: ProcessJob, onProgress?: (p: Progress) => void): Promise<RunResult> {
    if (this.closed) return Promise.reject(new Error('run processes: closed'));
    const child = this.children.find((c) => !c.busy) ?? (this.children.length < this.size ? this.spawn() : undefined);
    if (!child) return Promise.reject(new Error(`run processes: all ${this.size} workers are busy`));
    child.busy = true;
    const id = this.nextId++;
    return new Promise<RunResult>((resolve, reject) => {
      this.pending.set(id, { resolve, reject, onProgress, child });
      child.proc.send({ type: 'job', id, job } satisfies ToChild);
    });
  }

  /** Ask every run under way to stop cleanly (as Ctrl-C does). */
  stop(): void {
    for (const c of this.children) if (c.proc.connected) c.proc.send({ type: 'stop' } satisfies ToChild);
  }

  /** Mark every run under way interrupted at once (a second Ctrl-C); the workers exit. */
  abandon(): void {
    for (const c of this.children) if (c.proc.connected) c.proc.send({ type: 'abandon' } satisfies ToChild);
  }

  /** Let the workers go. */
  async close(): Promise<void> {
    this.closed = true;
    this.unrelay();
    await Promise.all(this.children.map((c) => new Promise<void>((resolve) => {
      if (c.proc.exitCode !== null || c.proc.signalCode !== null) { resolve(); return; }
      c.proc.once('exit', () => resolve());
      if (c.proc.connected) c.proc.disconnect();
    })));
  }

  private spawn(): Child {
    // A TypeScript entry (the sources, under tsx or vitest) runs through tsx; the built one as is.
    const execArgv = this.entry.endsWith('.ts') ? ['--import', 'tsx'] : [];
    const proc = fork(this.entry, [], { execArgv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'], serialization: 'advanced' });
    const child: Child = { proc, busy: false };
    proc.on('message', (m: FromChild) => this.onMessage(m, child));
    proc.on('exit', (code, signal) => {
      for (const [id, p] of this.pending) {
        if (p.child !== child) continue;
        this.pending.delete(id);
        p.reject(new Error(`run worker process exited (${signal ?? `code ${code}`}) during a run`));
      }
      const i = this.children.indexOf(child);
      if (i >= 0) this.children.splice(i, 1);
    });
    this.children.push(child);
    return child;
  }

  /** Send a verdict to every worker but the one it came from. */
  private relay(m: VerdictMessage, from: Child | null): void {
    for (const c of this.children) if (c !== from && c.proc.connected) c.proc.send(m satisfies ToChild);
  }

  private onMessage(m: FromChild, from: Child): void {
    if (m.type === 'verdict') {
      // One worker's verdict is every process's: the sweep grades each program once, not once a process.
      VERDICTS.put(m.key, m.value as never);
      this.relay(m, from);
      return;
    }
    const p = this.pending.get(m.id);
    if (!p) return;
    if (m.type === 'progress') { p.onProgress?.(m.progress); return; }
    this.pending.delete(m.id);
    p.child.busy = false;
    if (m.type === 'failed') p.reject(new Error(m.error));
    else p.resolve({ summary: m.summary, runDir: m.runDir, ...(m.interrupted ? { interrupted: true } : {}), ...(m.budget ? { budget: m.budget } : {}) });
  }
}

/**
 * The worker side of RunProcesses: take jobs from the parent over IPC and run them, one at a time,
 * until the parent disconnects. The caller (the CLI's run-child entry) has registered the model
 * plug-ins. A run that throws is reported as failed with its message; the worker goes on.
 */
export function serveRunJobs(): void {
  if (!process.send) throw new Error('serveRunJobs: not started as a worker process (no IPC channel)');
  const send = (m: FromChild) => { if (process.connected) process.send!(m); };
  // The parent relays Ctrl-C as a stop message: one signal, one clean stop per run.
  process.on('SIGINT', () => {});
  process.on('SIGTERM', () => {});
  let stop = new AbortController();
  let abandon: (() => void) | undefined;
  VERDICTS.onKept((key, value) => send({ type: 'verdict', key, value }));
  process.on('message', (m: ToChild) => {
    if (m.type === 'verdict') { VERDICTS.put(m.key, m.value as never); return; }
    if (m.type === 'stop') { stop.abort(); return; }
    if (m.type === 'abandon') { abandon?.(); process.exit(0); }
    if (m.type !== 'job') return;
    const { id, job } = m;
    stop = new AbortController();
    const loaded = parseScenario(job.config, job.file, job.dir);
    const opts = {
      ...job.opts, stop: stop.signal,
      onProgress: (progress: Progress) => send({ type: 'progress', id, progress }),
      onAbandonable: (f: () => void) => { abandon = f; },
    };
    const run = job.resume ? continueRun(loaded, opts) : runScenario(loaded, opts);
    // A run's spans (--otel) leave this process before the parent hears it is done (it may end the process then).
    run.then(async (r) => { await flushTracing(); return r; }).then(
      (r) => send({ type: 'done', id, summary: r.summary, runDir: r.runDir, ...(r.interrupted ? { interrupted: true } : {}), ...(r.budget ? { budget: r.budget } : {}) }),
      (err: unknown) => send({ type: 'failed', id, error: String((err as Error)?.message ?? err) }),
    );
  });
  process.on('disconnect', () => process.exit(0));
}
