import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ModelPlugin } from '../../scenario/model-plugins';
import { runScenario } from '../../run/run-scenario';
import { parseScenario, type LoadedScenario } from '../../scenario/scenario';
import { binomialSe } from './targets';

/** A variant's predicted accuracy: the mean over the seeds' runs, and a 95% interval for one run. */
export interface PredictedAccuracy {
  readonly variant: string;
  readonly mean: number;
  readonly lo: number;
  readonly hi: number;
  /** Each seed's accuracy. */
  readonly runs: readonly number[];
}

/**
 * What a calibrated world predicts a sweep's variants score (`plan --world`): each variant's full
 * stream run on the simulator in zero time for each seed, whatever backend the scenario names (the
 * world stands in for it). The interval is for one run: ±1.96 sd over the seeds with three or
 * more, else the binomial spread over the run's graded tasks. The world's own parameter
 * uncertainty is not propagated (the fit report gives it).
 */
export async function predictAccuracy(
  loaded: LoadedScenario, opts: { readonly variants: readonly string[]; readonly seeds: number; readonly tasks?: number; readonly plugins?: readonly ModelPlugin[] },
): Promise<PredictedAccuracy[]> {
  const sim = parseScenario({ ...loaded.scenario, model: { backend: 'sim' } }, loaded.file, loaded.dir);
  const dir = mkdtempSync(path.join(tmpdir(), 'evo-predict-'));
  try {
    const out: PredictedAccuracy[] = [];
    for (const variant of opts.variants) {
      const runs: number[] = [];
      let graded = 0;
      for (let i = 0; i < opts.seeds; i++) {
        const { summary } = await runScenario(sim, {
          variant, seed: sim.scenario.seed + i, outDir: path.join(dir, `${variant}-${i}`),
          ...(opts.tasks !== undefined ? { tasks: opts.tasks } : {}), ...(opts.plugins ? { plugins: opts.plugins } : {}),
        });
        runs.push(summary.accuracy);
        graded += summary.graded;
      }
      const mean = runs.reduce((a, b) => a + b, 0) / runs.length;
      const sd = runs.length >= 3 ? Math.sqrt(runs.reduce((a, r) => a + (r - mean) ** 2, 0) / (runs.length - 1)) : binomialSe(mean, Math.max(1, graded / runs.length));
      const r4 = (x: number) => Math.round(x * 1e4) / 1e4;
      out.push({ variant, mean: r4(mean), lo: r4(Math.max(0, mean - 1.96 * sd)), hi: r4(Math.min(1, mean + 1.96 * sd)), runs });
    }
    return out;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
