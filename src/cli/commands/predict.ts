import { availableParallelism } from 'node:os';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { DEFAULT_ABLATION_VARIANTS } from '../../engine/sweep/ablate';
import { predictStreams, type PredictionFile } from '../../engine/sweep/calibrate/prediction';
import { worldUncertainty } from '../world-uncertainty';
import { streamGroups } from '../world-groups';
import { loadScenario } from '../../engine/scenario/scenario';
import { scenarioWorld } from '../../sim/sim-plugin';
import { RUN_CHILD_ENTRY } from '../composition';
import { EXIT } from '../exit-codes';
import { UsageError, intFlag } from '../usage';
import { variantFlags } from '../variant-flags';
import { applyWorldFlag } from '../world-flag';

/** Help text of `evochamber predict`. */
export const PREDICT_HELP = `Usage: evochamber predict <world> <scenario> [<scenario> …] --out PREDICTION.json [options]

Write a pre-registered prediction (docs/calibration.md, "Pre-registered predictions"): under a
world (a world file, or a bundled world's name), each variant's accuracy on each stream, overall
and per niche, its stable specialists, and the drop from the reference variant, each with a 95%
interval for the mean of --runs seeds that carries both the fit's parameter uncertainty (draws
from the covariance calibrate wrote into the world) and the simulator's own run-to-run noise. The
file carries a hash of its content; "evochamber ablate … --score PREDICTION.json" scores runs
against it. Deterministic: the same world, scenarios and options give the same file.

Options:
  --out FILE        the prediction file (required)
  --variants a,b,…  variants to predict (default: ${DEFAULT_ABLATION_VARIANTS.join(',')})
  --reference V     the variant the drops are taken from (default evochamber, when predicted)
  --seeds N         seeds at the fitted world, counted up from --seed (default 3)
  --seed N          the first seed (default: each scenario's)
  --draws N         parameter draws from the world's covariance, one run each per variant and
                    stream (default 8; 0: the simulator's noise alone)
  --runs N          seeds the scored ablation will average: the intervals are for that mean (default 5)
  --tasks N         tasks per run (default: each scenario's stream)
  --jobs N          worker processes (default: the core count; 1 runs in this process)
  --json            print the prediction as one JSON line last
`;

/** `evochamber predict`. */
export async function predictCommand(argv: string[]): Promise<number | void> {
  const { values, positionals } = parseArgs({
    args: argv, allowPositionals: true,
    options: {
      out: { type: 'string' }, variants: { type: 'string' }, reference: { type: 'string' }, seeds: { type: 'string' }, seed: { type: 'string' },
      draws: { type: 'string' }, runs: { type: 'string' }, tasks: { type: 'string' }, jobs: { type: 'string' }, json: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) { process.stdout.write(PREDICT_HELP); return; }
  if (positionals.length < 2) throw new UsageError('predict takes a world and at least one scenario', PREDICT_HELP);
  if (!values.out) throw new UsageError('--out PREDICTION.json is required', PREDICT_HELP);
  const variants = values.variants?.split(',').map((v) => v.trim()).filter(Boolean) ?? [...DEFAULT_ABLATION_VARIANTS];
  if (!variants.length) throw new UsageError('--variants needs at least one name', PREDICT_HELP);
  variantFlags(variants, '--variants');
  const reference = values.reference ?? (variants.includes('evochamber') ? 'evochamber' : undefined);
  if (reference !== undefined && !variants.includes(reference)) throw new UsageError(`--reference ${reference} is not among --variants`, PREDICT_HELP);
  const seedCount = intFlag(values.seeds, '--seeds', 1) ?? 3;
  const draws = intFlag(values.draws, '--draws', 0) ?? 8;
  const runs = intFlag(values.runs, '--runs', 1) ?? 5;
  const tasks = intFlag(values.tasks, '--tasks', 1);
  const jobs = intFlag(values.jobs, '--jobs', 1) ?? availableParallelism();
  const [worldRef, ...scenarioRefs] = positionals as [string, ...string[]];
  const scenarios = scenarioRefs.map((s) => applyWorldFlag(loadScenario(s), worldRef));
  const { world } = scenarioWorld(scenarios[0]!.scenario.sim);
  if (!world) throw new UsageError(`world ${worldRef}: not loaded`);
  const uncertainty = worldUncertainty(world, worldRef, streamGroups(scenarios));
  if (!uncertainty && draws > 0) process.stderr.write(`predict: world ${world.name} records no fitted covariance (fit.covariance): the intervals carry the simulator's noise alone\n`);
  const seed0 = intFlag(values.seed, '--seed', 0) ?? scenarios[0]!.scenario.seed;
  const seeds = Array.from({ length: seedCount }, (_, i) => seed0 + i);
  const t0 = performance.now();
  const prediction = await predictStreams({
    scenarios, variants, seeds, draws: uncertainty ? draws : 0, runs, ...(reference ? { reference } : {}), tasks,
    ...(uncertainty ? { uncertainty } : {}), world, jobs, childEntry: RUN_CHILD_ENTRY,
    onRun: (done, total) => { if (done % 20 === 0 || done === total) process.stderr.write(`predict: ${done}/${total} runs\n`); },
  });
  const out = path.resolve(values.out);
  mkdirSync(path.dirname(out), { recursive: true });
  writeFileSync(out, `${JSON.stringify(prediction, null, 2)}\n`);
  process.stdout.write(`${formatPrediction(prediction)}\n`);
  process.stdout.write(`prediction: ${out} (hash ${prediction.hash}; ${((performance.now() - t0) / 1000).toFixed(1)} s)\n`);
  if (values.json) process.stdout.write(`${JSON.stringify(prediction)}\n`);
  return EXIT.ok;
}

/** The prediction as text: per stream, each variant's accuracy and specialists with intervals, the drops largest first. */
export function formatPrediction(p: PredictionFile): string {
  const f3 = (x: number) => x.toFixed(3);
  const iv = (f: { mean: number; lo: number; hi: number }) => `${f3(f.mean)} [${f3(f.lo)}, ${f3(f.hi)}]`;
  const lines = [`prediction under world ${p.world.name} (${p.seeds.length} seeds, ${p.draws} parameter draws; 95% intervals for the mean of ${p.runs} seeds${p.parameterUncertainty ? '' : ', the simulator\'s noise alone'}):`];
  for (const s of p.streams) {
    const w = Math.max(10, ...Object.keys(s.variants).map((v) => v.length));
    lines.push(`${s.scenario}${s.tasks !== null ? ` (${s.tasks} tasks)` : ''}:`, `  ${'variant'.padEnd(w)}  accuracy [95%]          stable specialists [95%]`);
    for (const [v, x] of Object.entries(s.variants)) lines.push(`  ${v.padEnd(w)}  ${iv(x.accuracy)}   ${iv(x.stableSpecialists)}`);
    if (s.dropRank.length) lines.push(`  drops from ${p.reference}, largest first: ${s.dropRank.map((v) => `${v} ${iv(s.drops[v]!)}`).join('; ')}`);
  }
  return lines.join('\n');
}
