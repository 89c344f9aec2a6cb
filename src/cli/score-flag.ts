import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { AblationResult } from '../engine/sweep/ablate';
import type { StreamPrediction, PredictionFile } from '../engine/sweep/calibrate/prediction';
import { formatScorecard, loadPrediction, scoreAblation, streamFor } from '../engine/sweep/calibrate/scorecard';
import type { LoadedScenario } from '../engine/scenario/scenario';

/** parseArgs option spec of `--score`. */
export const SCORE_FLAG_OPTIONS = { score: { type: 'string' } } as const;

/** Help lines of `--score`. */
export const SCORE_FLAG_HELP = `  --score FILE      score the ablation against a pre-registered prediction (evochamber predict):
                    each figure inside or outside its interval, the drops' rank order, the
                    share inside; printed and written to <out dir>/scorecard.json`;

/**
 * `--score PREDICTION.json`: read and check the prediction before any run (its hash, a stream for
 * this scenario at this length), and return what scores the ablation once it has run.
 */
export function scoreFlag(file: string | undefined, loaded: LoadedScenario, tasks: number | undefined): ((r: AblationResult) => void) | undefined {
  if (file === undefined) return undefined;
  const prediction: PredictionFile = loadPrediction(file);
  const stream: StreamPrediction = streamFor(prediction, file, loaded.scenario.name, tasks ?? loaded.scenario.stream.tasks);
  return (r) => {
    const card = scoreAblation(prediction, stream, r);
    process.stdout.write(`${formatScorecard(card)}\n`);
    const out = path.join(r.outDir, 'scorecard.json');
    writeFileSync(out, `${JSON.stringify(card, null, 2)}\n`);
    process.stdout.write(`scorecard: ${out}\n`);
  };
}
