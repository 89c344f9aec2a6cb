import { existsSync, readFileSync } from 'node:fs';
import type { AblationResult } from '../ablate';
import { intervalFor, predictionHash, type PredictedFigure, type PredictionFile, type StreamPrediction } from './prediction';

/** A prediction file that cannot be used: one line naming it. */
export class PredictionFileError extends Error {
  constructor(readonly file: string, detail: string) {
    super(`${file}: ${detail}`);
    this.name = 'PredictionFileError';
  }
}

/** One scored figure. */
export interface ScoredFigure {
  readonly figure: string;
  readonly variant: string;
  readonly predicted: number;
  readonly interval: readonly [number, number];
  readonly measured: number;
  readonly inside: boolean;
}

/** How an ablation fell against its pre-registered prediction (docs/calibration.md, "Pre-registered predictions"). */
export interface Scorecard {
  readonly schemaVersion: 1;
  readonly prediction: string;
  readonly scenario: string;
  /** Seeds the ablation averaged: the intervals are for that many runs. */
  readonly runs: number;
  readonly figures: readonly ScoredFigure[];
  /** The ablation drops, by predicted size and by measured size, largest first; Spearman's ρ between them; whether the largest is the same. */
  readonly dropRank: { readonly predicted: readonly string[]; readonly measured: readonly string[]; readonly spearman: number | null; readonly largestSame: boolean };
  /** The share of figures inside their interval (calibrated 95% intervals hold about 0.95). */
  readonly calibration: { readonly inside: number; readonly total: number; readonly share: number };
}

/** Read a prediction file and check its hash: a file edited after it was written is refused. */
export function loadPrediction(file: string): PredictionFile {
  if (!existsSync(file)) throw new PredictionFileError(file, 'prediction file not found');
  let p: PredictionFile;
  try {
    p = JSON.parse(readFileSync(file, 'utf8')) as PredictionFile;
  } catch (err) {
    throw new PredictionFileError(file, `not valid JSON: ${(err as Error).message}`);
  }
  if (p?.kind !== 'evochamber-prediction' || p.schemaVersion !== 1 || !Array.isArray(p.streams)) throw new PredictionFileError(file, 'not an evochamber prediction (write one with evochamber predict)');
  if (predictionHash(p) !== p.hash) throw new PredictionFileError(file, `hash: the content does not match its hash ${p.hash} (the file was changed after it was written)`);
  return p;
}

/** The prediction's stream for an ablation's scenario (by name), or a one-line error. */
export function streamFor(p: PredictionFile, file: string, scenario: string, tasks: number | undefined): StreamPrediction {
  const s = p.streams.find((x) => x.scenario === scenario);
  if (!s) throw new PredictionFileError(file, `streams: no prediction for scenario ${scenario} (it predicts ${p.streams.map((x) => x.scenario).join(', ')})`);
  if (tasks !== undefined && s.tasks !== null && s.tasks !== tasks) throw new PredictionFileError(file, `streams.${scenario}.tasks: predicted for ${s.tasks}-task streams, the ablation runs ${tasks}`);
  return s;
}

/** Score an ablation against its stream's prediction: every variant's accuracy, niches and specialists, and every drop. */
export function scoreAblation(p: PredictionFile, s: StreamPrediction, r: AblationResult): Scorecard {
  const runs = r.seeds;
  const figures: ScoredFigure[] = [];
  const score = (figure: string, variant: string, f: PredictedFigure, measured: number) => {
    const range: [number, number] = figure === 'drop' ? [-Infinity, Infinity] : figure === 'stable specialists' ? [0, Infinity] : [0, 1];
    const interval = intervalFor(f, runs, range).map((x) => Math.round(x * 1e4) / 1e4) as [number, number];
    figures.push({ figure, variant, predicted: f.mean, interval, measured: Math.round(measured * 1e4) / 1e4, inside: measured >= interval[0] && measured <= interval[1] });
  };
  for (const [v, pred] of Object.entries(s.variants)) {
    const m = r.variants[v];
    if (!m) continue;
    score('accuracy', v, pred.accuracy, m.accuracy.mean);
    for (const [n, f] of Object.entries(pred.perNiche)) if (m.perNiche[n]) score(`niche ${n}`, v, f, m.perNiche[n]!.mean);
    score('stable specialists', v, pred.stableSpecialists, m.stableSpecialists.mean);
  }
  const ref = p.reference;
  const measuredDrops: Record<string, number> = {};
  if (ref !== null && r.variants[ref]) {
    for (const [v, f] of Object.entries(s.drops)) {
      if (!r.variants[v]) continue;
      measuredDrops[v] = r.variants[ref]!.accuracy.mean - r.variants[v]!.accuracy.mean;
      score('drop', v, f, measuredDrops[v]!);
    }
  }
  const predicted = s.dropRank.filter((v) => v in measuredDrops);
  const measured = Object.keys(measuredDrops).sort((a, b) => measuredDrops[b]! - measuredDrops[a]! || a.localeCompare(b));
  const inside = figures.filter((f) => f.inside).length;
  return {
    schemaVersion: 1, prediction: p.hash, scenario: s.scenario, runs, figures,
    dropRank: { predicted, measured, spearman: spearman(predicted, measured), largestSame: predicted.length > 0 && predicted[0] === measured[0] },
    calibration: { inside, total: figures.length, share: figures.length ? Math.round((inside / figures.length) * 1000) / 1000 : 0 },
  };
}

/** Spearman's rank correlation of two orderings of the same names (null under three). */
function spearman(a: readonly string[], b: readonly string[]): number | null {
  const n = a.length;
  if (n < 3) return null;
  const d2 = a.reduce((s, v, i) => s + (i - b.indexOf(v)) ** 2, 0);
  return Math.round((1 - (6 * d2) / (n * (n * n - 1))) * 1000) / 1000;
}

/** The scorecard as text. */
export function formatScorecard(c: Scorecard): string {
  const w = Math.max(10, ...c.figures.map((f) => `${f.variant} ${f.figure}`.length));
  const f3 = (x: number) => x.toFixed(3);
  return [
    `scorecard against prediction ${c.prediction} on ${c.scenario} (${c.runs} seeds; intervals for the mean of ${c.runs}):`,
    `${'figure'.padEnd(w)}  predicted [95%]              measured  inside`,
    ...c.figures.map((f) => `${`${f.variant} ${f.figure}`.padEnd(w)}  ${f3(f.predicted)} [${f3(f.interval[0])}, ${f3(f.interval[1])}]   ${f3(f.measured).padStart(8)}  ${f.inside ? 'yes' : 'NO'}`),
    `drops, largest first: predicted ${c.dropRank.predicted.join(' > ') || '–'}; measured ${c.dropRank.measured.join(' > ') || '–'}; Spearman ρ ${c.dropRank.spearman ?? '–'}; largest ${c.dropRank.largestSame ? 'the same' : 'differs'}`,
    `calibration: ${c.calibration.inside} of ${c.calibration.total} figures inside their 95% interval (${(c.calibration.share * 100).toFixed(1)}%)`,
  ].join('\n');
}
