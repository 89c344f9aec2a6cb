import type { ModelPlugin } from '../../scenario/model-plugins';
import { RunProcesses } from '../../run/run-processes';
import { runScenario } from '../../run/run-scenario';
import type { RunResult } from '../../run/run-options';
import type { LoadedScenario } from '../../scenario/scenario';
import type { ScenarioPatch } from '../../../core/scenario-patch';

/** One run of a batch: a scenario under a patch, into a directory. */
export interface BatchRun {
  readonly loaded: LoadedScenario;
  readonly patch: ScenarioPatch;
  readonly outDir: string;
}

/** How a batch runs: worker processes (with `childEntry` and `jobs` > 1) or this process. */
export interface BatchOptions {
  readonly jobs?: number;
  readonly childEntry?: string;
  readonly plugins?: readonly ModelPlugin[];
  readonly stop?: AbortSignal;
  /** Told after each run ends. */
  readonly onRun?: (done: number, total: number) => void;
}

/**
 * Runs a batch of simulator runs, `jobs` at once on the sweep's worker processes (RunProcesses) or
 * one at a time in this process, and returns their results in the batch's order whatever order
 * they finished in. The predictions' runner (a calibration's evaluations have their own in Evaluator).
 */
export async function runBatch(runs: readonly BatchRun[], opts: BatchOptions = {}): Promise<RunResult[]> {
  const jobs = opts.jobs ?? 1;
  const pool = jobs > 1 && opts.childEntry ? new RunProcesses(opts.childEntry, jobs) : null;
  const results: RunResult[] = new Array(runs.length);
  let next = 0;
  let done = 0;
  const worker = async () => {
    while (next < runs.length) {
      const i = next++;
      const r = runs[i]!;
      const o = { patch: r.patch, outDir: r.outDir };
      results[i] = pool
        ? await pool.run({ config: r.loaded.scenario, file: r.loaded.file, dir: r.loaded.dir, opts: o, resume: false })
        : await runScenario(r.loaded, { ...o, ...(opts.stop ? { stop: opts.stop } : {}), ...(opts.plugins ? { plugins: opts.plugins } : {}) });
      if (results[i]!.interrupted || opts.stop?.aborted) throw new Error('interrupted');
      opts.onRun?.(++done, runs.length);
    }
  };
  const onStop = () => pool?.stop();
  opts.stop?.addEventListener('abort', onStop, { once: true });
  try {
    await Promise.all(Array.from({ length: pool ? jobs : 1 }, worker));
    return results;
  } finally {
    opts.stop?.removeEventListener('abort', onStop);
    await pool?.close();
  }
}
