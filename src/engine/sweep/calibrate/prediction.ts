import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createRng } from '../../../core/rng';
import type { RunSummary } from '../../loop/summary';
import { parseScenario, type LoadedScenario } from '../../scenario/scenario';
import { scenarioPatch } from '../../../core/scenario-patch';
import { canonical } from './canonical';
import { hashOf } from './journal';
import { runBatch, type BatchOptions } from './run-batch';
import { cholesky, type Matrix } from './stats';

/** A world's fitted parameters as `predict` reads them from its `fit` (what `calibrate` wrote). */
export interface WorldUncertainty {
  readonly names: readonly string[];
  readonly values: readonly number[];
  readonly bounds: readonly (readonly [number, number])[];
  /** Covariance in parameter units. */
  readonly covariance: Matrix;
  /** The world's `sim.world` patch with these parameters set to `values`. */
  readonly worldAt: (values: readonly number[]) => unknown;
}

/** One predicted figure: its mean, the 95% interval for the mean of `runs` seeds, and the two parts of its spread. */
export interface PredictedFigure {
  readonly mean: number;
  readonly lo: number;
  readonly hi: number;
  /** Spread from the parameters' uncertainty (draws from the covariance, each against the fitted world at the same seed). */
  readonly sdParameters: number;
  /** One run's spread from the simulator's own noise (over the seeds at the fitted world). */
  readonly sdRun: number;
}

/** One stream's predictions. */
export interface StreamPrediction {
  readonly scenario: string;
  readonly tasks: number | null;
  readonly variants: Record<string, { readonly accuracy: PredictedFigure; readonly perNiche: Record<string, PredictedFigure>; readonly stableSpecialists: PredictedFigure }>;
  /** Reference minus each other variant (the ablation drops), and the variants by predicted drop, largest first. */
  readonly drops: Record<string, PredictedFigure>;
  readonly dropRank: readonly string[];
}

/** The pre-registered prediction file (docs/calibration.md, "Pre-registered predictions"). */
export interface PredictionFile {
  readonly schemaVersion: 1;
  readonly kind: 'evochamber-prediction';
  readonly world: { readonly name: string; readonly content: string };
  readonly seeds: readonly number[];
  readonly draws: number;
  /** The seeds the scored ablation is expected to average (the intervals are for a mean of this many runs). */
  readonly runs: number;
  readonly reference: string | null;
  readonly parameterUncertainty: boolean;
  readonly streams: readonly StreamPrediction[];
  /** sha256 (16 hex) of the canonical content without this field. */
  readonly hash: string;
}

export interface PredictOptions extends BatchOptions {
  readonly scenarios: readonly LoadedScenario[];
  readonly variants: readonly string[];
  readonly seeds: readonly number[];
  /** Parameter draws from the covariance (0: the simulator's noise alone). */
  readonly draws: number;
  readonly runs: number;
  readonly reference?: string;
  readonly tasks?: number;
  readonly uncertainty?: WorldUncertainty;
  /** The world as inlined in the scenarios (its name and content identify the prediction). */
  readonly world: { readonly name: string; readonly params?: unknown; readonly niches?: unknown };
}

const Z95 = 1.96;
const UNIT = [0, 1] as const;
const r4 = (x: number) => Math.round(x * 1e4) / 1e4;

/**
 * Predict each variant on each stream under a world: the runs at the fitted world over the seeds
 * give each figure's mean and the simulator's own run-to-run spread; `draws` parameter vectors from
 * the fit's covariance (clipped to the bounds; draw m runs at seed m mod seeds, against the fitted
 * world's run at that seed: common random numbers) give the spread the parameters' uncertainty
 * adds. The interval is for the mean of `runs` seeds: mean ± 1.96 √(sd_parameters² + sd_run²/runs).
 * Deterministic: the draws come from the first seed.
 */
export async function predictStreams(opts: PredictOptions): Promise<PredictionFile> {
  const dir = mkdtempSync(path.join(tmpdir(), 'evo-predict-'));
  const u = opts.draws > 0 ? opts.uncertainty : undefined;
  const points = u ? drawPoints(u, opts.draws, opts.seeds[0] ?? 1) : [];
  try {
    const sims = opts.scenarios.map((l) => parseScenario({ ...l.scenario, model: { backend: 'sim' } }, l.file, l.dir));
    const jobs = sims.flatMap((loaded, s) => opts.variants.flatMap((variant) => [
      ...opts.seeds.map((seed) => ({ s, variant, seed, draw: -1 })),
      ...points.map((_, m) => ({ s, variant, seed: opts.seeds[m % opts.seeds.length]!, draw: m })),
    ].map((j) => ({
      ...j, loaded,
      patch: scenarioPatch({ variant: j.variant, seed: j.seed, 'stream.tasks': opts.tasks, ...(j.draw >= 0 ? { 'sim.world': u!.worldAt(points[j.draw]!) } : {}) }),
      outDir: path.join(dir, `${s}-${j.variant}-${j.seed}-${j.draw}`),
    }))));
    const results = await runBatch(jobs, opts);
    const summaryOf = (s: number, variant: string, seed: number, draw: number) => results[jobs.findIndex((j) => j.s === s && j.variant === variant && j.seed === seed && j.draw === draw)]!.summary;
    const streams = sims.map((loaded, s): StreamPrediction => {
      const pick = (variant: string, f: (x: RunSummary) => number): Sample => ({
        centre: opts.seeds.map((seed) => f(summaryOf(s, variant, seed, -1))),
        draws: points.map((_, m) => f(summaryOf(s, variant, opts.seeds[m % opts.seeds.length]!, m)) - f(summaryOf(s, variant, opts.seeds[m % opts.seeds.length]!, -1))),
      });
      const variants = Object.fromEntries(opts.variants.map((v) => {
        const niches = Object.keys(summaryOf(s, v, opts.seeds[0]!, -1).perNiche).sort();
        return [v, {
          accuracy: figure(pick(v, (x) => x.accuracy), opts.runs, UNIT),
          perNiche: Object.fromEntries(niches.map((n) => [n, figure(pick(v, (x) => x.perNiche[n] ?? 0), opts.runs, UNIT)])),
          stableSpecialists: figure(pick(v, (x) => x.stableSpecialists ?? 0), opts.runs, [0, Infinity]),
        }];
      }));
      const ref = opts.reference;
      const drops: Record<string, PredictedFigure> = {};
      if (ref !== undefined) {
        for (const v of opts.variants.filter((x) => x !== ref)) {
          const a = pick(ref, (x) => x.accuracy);
          const b = pick(v, (x) => x.accuracy);
          drops[v] = figure({ centre: a.centre.map((x, i) => x - b.centre[i]!), draws: a.draws.map((x, i) => x - b.draws[i]!) }, opts.runs);
        }
      }
      const dropRank = Object.keys(drops).sort((a, b) => drops[b]!.mean - drops[a]!.mean || a.localeCompare(b));
      return { scenario: loaded.scenario.name, tasks: opts.tasks ?? loaded.scenario.stream.tasks ?? null, variants, drops, dropRank };
    });
    return withHash({
      schemaVersion: 1, kind: 'evochamber-prediction',
      world: { name: opts.world.name, content: hashOf(canonical({ params: opts.world.params ?? {}, niches: opts.world.niches ?? {} })) },
      seeds: opts.seeds, draws: points.length, runs: opts.runs, reference: opts.reference ?? null, parameterUncertainty: points.length > 0, streams,
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A figure's runs: at the fitted world per seed, and each draw's difference from the fitted world at its seed. */
interface Sample {
  readonly centre: readonly number[];
  readonly draws: readonly number[];
}

/** Mean and interval of a figure for the mean of `runs` seeds (an accuracy's interval kept within 0–1, a count's above 0). */
export function figure(x: Sample, runs: number, range: readonly [number, number] = [-Infinity, Infinity]): PredictedFigure {
  const n = x.centre.length;
  const mean = x.centre.reduce((a, b) => a + b, 0) / n;
  // Each spread is estimated from a few runs: widened by Student's t over 1.96 for its degrees of freedom, so three seeds do not claim a normal's certainty.
  const sdRun = n >= 2 ? Math.sqrt(x.centre.reduce((a, v) => a + (v - mean) ** 2, 0) / (n - 1)) * tWiden(n - 1) : 0;
  // The draws' spread about the fitted world (not about their own mean: a shifted mean is uncertainty too).
  const sdParameters = x.draws.length ? Math.sqrt(x.draws.reduce((a, d) => a + d * d, 0) / x.draws.length) * tWiden(x.draws.length) : 0;
  const half = Z95 * Math.sqrt(sdParameters ** 2 + sdRun ** 2 / Math.max(1, runs));
  return { mean: r4(mean), lo: r4(Math.max(range[0], mean - half)), hi: r4(Math.min(range[1], mean + half)), sdParameters: r4(sdParameters), sdRun: r4(sdRun) };
}

/** Student's t (97.5 %) over 1.96 for `df` degrees of freedom: how much wider an interval is when its sd was estimated from df + 1 values. */
export function tWiden(df: number): number {
  const t = [Infinity, 12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.16, 2.145, 2.131, 2.12, 2.11, 2.101, 2.093, 2.086];
  return (df < t.length ? t[df]! : 1.96 + 2.4 / df) / 1.96;
}

/** The interval of a predicted figure for a mean of `runs` seeds (the scorecard's, when the ablation ran another count), kept within `range`. */
export function intervalFor(f: PredictedFigure, runs: number, range: readonly [number, number] = [-Infinity, Infinity]): [number, number] {
  const half = Z95 * Math.sqrt(f.sdParameters ** 2 + f.sdRun ** 2 / Math.max(1, runs));
  return [Math.max(range[0], f.mean - half), Math.min(range[1], f.mean + half)];
}

/** Parameter vectors drawn from N(values, covariance), clipped to the bounds; deterministic in `seed`. */
export function drawPoints(u: WorldUncertainty, count: number, seed: number): number[][] {
  const l = cholesky(u.covariance as Matrix);
  const rng = createRng(`predict-draws:${seed}`);
  return Array.from({ length: count }, () => {
    const z = u.values.map(() => rng.normal());
    return u.values.map((v, i) => {
      const x = v + l[i]!.reduce((s, c, j) => s + c * z[j]!, 0);
      return Math.round(Math.min(u.bounds[i]![1], Math.max(u.bounds[i]![0], x)) * 1e9) / 1e9;
    });
  });
}

/** The prediction with its content hash. */
export function withHash(p: Omit<PredictionFile, 'hash'>): PredictionFile {
  return { ...p, hash: hashOf(canonical(p)) };
}

/** The hash a prediction file should carry (a file whose hash differs was edited after it was written). */
export function predictionHash(p: PredictionFile): string {
  const { hash: _h, ...rest } = p;
  return hashOf(canonical(rest));
}
