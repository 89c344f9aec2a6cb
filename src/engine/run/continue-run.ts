import { existsSync, rmSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import { readRunLock } from '../../store/run-lock';
import { RunStore } from '../../store/run-store';
import { resumeRun, runScenario, type RunOptions, type RunResult } from './run-scenario';
import type { LoadedScenario } from '../scenario/scenario';
import type { RunSummary } from '../loop/summary';

/** Options of `continueRun`: the run's own options, plus how far to trust a lock from another host. */
export interface ContinueOptions extends RunOptions {
  /**
   * Clear a `run.lock` that names another host (which `resumeRun` cannot check by pid). Only for a
   * caller that knows the owner is gone: the sweep worker, which BullMQ gives a job only after the
   * previous worker's lock expired.
   */
  readonly takeOverForeignLock?: boolean;
}

/**
 * Finish the run in `opts.outDir`, whatever a stopped process left there: a finished run is read
 * back, an interrupted or crashed one resumed (no finished call paid twice), and a directory with
 * no `run.json` (stopped before its first write, or never started) starts over. Used by a resumed
 * ablation and by the sweep worker for a job taken back from a dead worker.
 */
export async function continueRun(loaded: LoadedScenario, opts: ContinueOptions & { readonly outDir: string }): Promise<RunResult> {
  const runDir = opts.outDir;
  const { takeOverForeignLock, ...runOpts } = opts;
  if (!existsSync(path.join(runDir, 'run.json'))) {
    rmSync(runDir, { recursive: true, force: true });
    return runScenario(loaded, runOpts);
  }
  const store = await RunStore.open(runDir);
  if (store.data.status === 'finished') return { summary: store.data.summary as unknown as RunSummary, runDir };
  const lock = readRunLock(runDir);
  if (takeOverForeignLock && lock && lock.host !== hostname()) rmSync(path.join(runDir, 'run.lock'), { force: true });
  const { stop, graceMs, onAbandonable, model, onProgress, onNotice, clock, afterRun, structures, plugins, shared, budget } = runOpts;
  return resumeRun(runDir, {
    stop, graceMs, onAbandonable, model, onProgress, onNotice, clock, afterRun,
    ...(structures ? { structures } : {}), ...(plugins ? { plugins } : {}), ...(shared ? { shared } : {}), ...(budget ? { budget } : {}),
  });
}
