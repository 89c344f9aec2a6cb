import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { AblationResult } from '../engine/sweep/ablate';
import type { StreamPrediction, PredictionFile } from '../engine/sweep/calibrate/prediction';
import { formatScorecard, loadPrediction, scoreAblation, streamFor } from '../engine/sweep/calibrate/scorecard';
import type { LoadedScenario } from '../engine/scenario/scenario';
import { canonical } from '../engine/sweep/calibrate/canonical';
import { hashOf } from '../engine/sweep/calibrate/journal';
import { scenarioWorld } from '../sim/sim-plugin';

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
  // On the simulator the runs may play the predicted world (a check of the prediction's own noise) or
  // another that stands for the real system (a hidden world, as in the recovery bench): said in one line.
  const { world } = scenarioWorld(loaded.scenario.sim);
  if (loaded.scenario.model.backend === 'sim' && hashOf(canonical({ params: world?.params ?? {}, niches: world?.niches ?? {} })) !== prediction.world.content) {
    process.stderr.write(`ablate: --score: the runs play ${world ? `world ${world.name}` : 'the default world'}, not the predicted world ${prediction.world.name}: they are scored as measurements of the system that world stands for\n`);
  }
  return (r) => {
    const card = scoreAblation(prediction, stream, r);
    process.stdout.write(`${formatScorecard(card)}\n`);
    const out = path.join(r.outDir, 'scorecard.json');
    writeFileSync(out, `${JSON.stringify(card, null, 2)}\n`);
    process.stdout.write(`scorecard: ${out}\n`);
  };
}
