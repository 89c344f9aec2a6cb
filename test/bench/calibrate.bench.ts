import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadScenario, runScenario, withOverrides } from '../../src/index';
import { nicheOutcomes } from '../../src/engine/sweep/calibrate/targets';

const env = (name: string) => process.env[`EVO_CALIBRATE_${name}`];

/**
 * `npm run bench -- calibrate`: a calibration's pace and its fit. By default a self-contained one:
 * targets measured on the simulator itself at a known world (hard, single-agent and
 * per-agent-memory, 2 seeds of 60 tasks), fitted from the default world; it prints evaluations per
 * minute, the wall time, the fit table, and whether the known values fall in their intervals.
 * Pointed elsewhere by environment variables (the paper-qwen3-8b fit):
 *   EVO_CALIBRATE_SCENARIO=hard-math EVO_CALIBRATE_TARGETS=scenarios/worlds/paper-qwen3-8b.targets.json
 *   EVO_CALIBRATE_FIT=base@math-hard,base@aime,… EVO_CALIBRATE_TASKS=N EVO_CALIBRATE_SEEDS=N EVO_CALIBRATE_BUDGET=N
 *   EVO_CALIBRATE_OUT=scenarios/worlds/paper-qwen3-8b.json
 *   EVO_CALIBRATE_PREDICT=evochamber,… (variants to run with the fitted world afterwards: the prediction table)
 * Printed, never asserted.
 */
export async function benchCalibrate(): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), 'evo-bench-calibrate-'));
  const scenario = env('SCENARIO') ?? 'hard';
  let targets = env('TARGETS');
  let fit = env('FIT');
  const tasks = env('TASKS') ?? (targets ? undefined : '60');
  const seeds = env('SEEDS') ?? '2';
  const budget = env('BUDGET') ?? '40';
  const known: Record<string, number> = {};
  if (!targets) {
    // Targets from a known world: each niche's base moved off the default, and memory worth less.
    const truth = { base: 0.6, coverage: 1.8 };
    Object.assign(known, truth);
    const hard = loadScenario(scenario);
    const rows = [];
    for (const variant of ['single-agent', 'per-agent-memory']) {
      const pooled = new Map<string, { n: number; sum: number }>();
      for (let s = 0; s < Number(seeds); s++) {
        const out = path.join(dir, `truth-${variant}-${s}`);
        await runScenario(withOverrides(hard, { sim: { world: { schemaVersion: 1, name: 'truth', params: truth } } }), { variant, seed: hard.scenario.seed + s, tasks: Number(tasks), outDir: out, report: false });
        for (const [niche, o] of nicheOutcomes(out)) {
          const p = pooled.get(niche) ?? { n: 0, sum: 0 };
          p.n += o.n; p.sum += o.sum;
          pooled.set(niche, p);
        }
      }
      for (const [niche, p] of pooled) rows.push({ variant, niche, accuracy: p.sum / p.n, n: p.n, source: `simulator at base ${truth.base}, coverage ${truth.coverage}` });
    }
    targets = path.join(dir, 'targets.json');
    writeFileSync(targets, JSON.stringify({ schemaVersion: 1, targets: rows }));
    fit ??= 'base,coverage';
  }
  const out = env('OUT') ?? path.join(dir, 'world.json');
  const args = ['calibrate', scenario, '--targets', targets, '--out', out, '--seeds', seeds, '--budget', budget, '--quiet', '--json',
    ...(fit ? ['--fit', fit] : []), ...(tasks ? ['--tasks', tasks] : [])];
  console.log(`evochamber ${args.join(' ')}`);
  const t0 = performance.now();
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  const wall = (performance.now() - t0) / 1000;
  if (r.status !== 0) {
    console.log(`calibrate exited ${r.status}`);
    return;
  }
  const lines = r.stdout.trim().split('\n');
  const report = JSON.parse(lines.at(-1)!) as { evaluations: { paid: number; total: number }; evaluationsPerMinute: number; parameters: { name: string; interval: [number, number] }[] };
  console.log(lines.slice(0, -1).join('\n'));
  console.log(`wall time ${wall.toFixed(1)} s for ${report.evaluations.total} evaluations (${report.evaluations.paid} paid): ${report.evaluationsPerMinute} evaluations per minute`);
  for (const p of report.parameters) {
    const k = known[p.name];
    if (k !== undefined) console.log(`known ${p.name} = ${k}: ${k >= p.interval[0] && k <= p.interval[1] ? 'within' : 'NOT within'} its interval ${p.interval[0].toFixed(3)} – ${p.interval[1].toFixed(3)}`);
  }
  const predict = env('PREDICT');
  if (predict) {
    const scenarios = [...new Set((JSON.parse(readFileSync(targets, 'utf8')) as { targets: { scenario?: string }[] }).targets.map((t) => t.scenario ?? scenario))];
    for (const s of scenarios) {
      const a = ['ablate', s, '--world', out, '--variants', predict, '--seeds', env('PREDICT_SEEDS') ?? '3', '--quiet', '--out', path.join(dir, `predict-${path.basename(s, '.json')}`)];
      console.log(`\nprediction: evochamber ${a.join(' ')}`);
      const p = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...a], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
      console.log(p.stdout.trim());
    }
  }
}
