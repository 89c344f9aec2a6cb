import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ModelPlugin } from '../../scenario/model-plugins';
import { runScenario } from '../../run/run-scenario';
import type { RunSummary } from '../../loop/summary';
import { parseScenario, type LoadedScenario } from '../../scenario/scenario';
import { scenarioPatch } from '../../../core/scenario-patch';
import { drawPoints, figure, type WorldUncertainty } from './prediction';
import { binomialSe } from './targets';

/** A figure of `plan --world`: the mean over the seeds' runs and a 95% interval for one run. */
export interface PredictedRange {
  readonly mean: number;
  readonly lo: number;
  readonly hi: number;
}

/** A variant's predicted accuracy: the mean over the seeds' runs, a 95% interval for one run, each niche's, and each seed's accuracy. */
export interface PredictedAccuracy extends PredictedRange {
  readonly variant: string;
  /** Each seed's accuracy. */
  readonly runs: readonly number[];
  readonly perNiche: Record<string, PredictedRange>;
  /** The part of the spread the world's parameter uncertainty adds (0 without a recorded covariance). */
  readonly sdParameters: number;
}

/**
 * What a calibrated world predicts a sweep's variants score (`plan --world`): each variant's full
 * stream run on the simulator in zero time for each seed, whatever backend the scenario names (the
 * world stands in for it). The interval is for one run, overall and per niche: the run-to-run
 * spread (sd over the seeds with three or more, else the binomial spread over the run's graded
 * tasks) and, when the world records its fit's covariance (`uncertainty`), the spread of `draws`
 * parameter vectors drawn from it, each run at a seed against the fitted world's run there
 * (prediction.ts: the pre-registered `predict` does the same for the mean of several seeds).
 */
export async function predictAccuracy(
  loaded: LoadedScenario,
  opts: { readonly variants: readonly string[]; readonly seeds: number; readonly tasks?: number; readonly plugins?: readonly ModelPlugin[]; readonly uncertainty?: WorldUncertainty; readonly draws?: number },
): Promise<PredictedAccuracy[]> {
  const sim = parseScenario({ ...loaded.scenario, model: { backend: 'sim' } }, loaded.file, loaded.dir);
  const dir = mkdtempSync(path.join(tmpdir(), 'evo-predict-'));
  const points = opts.uncertainty ? drawPoints(opts.uncertainty, opts.draws ?? 4, sim.scenario.seed) : [];
  const run = async (variant: string, i: number, label: string, world?: unknown): Promise<RunSummary> => (await runScenario(sim, {
    patch: scenarioPatch({ variant, seed: sim.scenario.seed + i, 'stream.tasks': opts.tasks, 'sim.world': world }),
    outDir: path.join(dir, `${variant}-${label}`), ...(opts.plugins ? { plugins: opts.plugins } : {}),
  })).summary;
  try {
    const out: PredictedAccuracy[] = [];
    for (const variant of opts.variants) {
      const centre: RunSummary[] = [];
      for (let i = 0; i < opts.seeds; i++) centre.push(await run(variant, i, `${i}`));
      const drawn: RunSummary[] = [];
      for (let m = 0; m < points.length; m++) drawn.push(await run(variant, m % opts.seeds, `d${m}`, opts.uncertainty!.worldAt(points[m]!)));
      const graded = centre.reduce((a, s) => a + s.graded, 0) / centre.length;
      const range = (f: (s: RunSummary) => number, n: number): PredictedRange & { sdParameters: number } => {
        const fig = figure({ centre: centre.map(f), draws: drawn.map((d, m) => f(d) - f(centre[m % opts.seeds]!)) }, 1, [0, 1]);
        const sdRun = opts.seeds >= 3 ? fig.sdRun : binomialSe(fig.mean, Math.max(1, n));
        const half = 1.96 * Math.sqrt(sdRun ** 2 + fig.sdParameters ** 2);
        const r4 = (x: number) => Math.round(x * 1e4) / 1e4;
        return { mean: fig.mean, lo: r4(Math.max(0, fig.mean - half)), hi: r4(Math.min(1, fig.mean + half)), sdParameters: fig.sdParameters };
      };
      const niches = Object.keys(centre[0]!.perNiche).sort();
      const all = range((s) => s.accuracy, graded);
      out.push({
        variant, ...all, runs: centre.map((s) => s.accuracy),
        perNiche: Object.fromEntries(niches.map((n) => { const { sdParameters: _s, ...r } = range((s) => s.perNiche[n] ?? 0, graded / niches.length); return [n, r]; })),
      });
    }
    return out;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
