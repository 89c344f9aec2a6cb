import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadScenario, runScenario } from '../../src/index';
import { withOverrides } from '../../src/engine/scenario/scenario';
import { nicheOutcomes } from '../../src/engine/sweep/calibrate/targets';

const env = (name: string) => process.env[`EVO_CALIBRATE_${name}`];

/**
 * The truth: a global logit, what knowledge in the prompt is worth, a structure constant, and a form
 * parameter of the paper form that these baselines move: `expertise`, the skill niche know-how adds
 * (0.8, paper-form.json's documented start). At 40–100 tasks `reflectCompetence` and `contrastUptake`
 * move none of them (docs/benchmarks.md, "Calibration"), so no fit could recover them.
 */
const DEFAULT_TRUTH = 'base=0.6,coverage=1.8,recognize=2.2,expertise=0.8';
/** The baselines measured: shared memory (symmetric CoDream) is the one whose accuracy what is known moves at short streams. */
const DEFAULT_VARIANTS = 'single-agent,per-agent-memory,shared-memory,structure-only,self-consistency';
const cli = (args: string[]) => spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 1 << 26 });

interface FitJson {
  chi2: number; dof: number; pValue: number; converged: boolean;
  evaluations: { paid: number; total: number }; evaluationsPerMinute: number; wallSeconds: number;
  parameters: { name: string; value: number; se: number | null; lo: number; hi: number; interval: [number, number]; open: [boolean, boolean]; pinned: boolean }[];
}

/**
 * `npm run bench -- calibrate`: disjoint-seed parameter recovery, and the whole pre-registration loop.
 * The truth is a world of known parameters (EVO_CALIBRATE_TRUTH, default DEFAULT_TRUTH: a global
 * logit, what knowledge in the prompt is worth, a structure constant and a form parameter; any
 * fittable parameter of the world may be named). Each of EVO_CALIBRATE_REPS (10) replications
 * measures the baselines (EVO_CALIBRATE_VARIANTS, default DEFAULT_VARIANTS) under the truth at its own seeds
 * (1000 + 100 r …), then calibrates from the default world at seeds 1… (never the targets'), fitting
 * the truth's parameters. Printed: each replication's fit, how often each 95% interval (the profile's,
 * and the covariance's ± 1.96 se) covers the truth, the first replication's fit table (χ², p,
 * leave-one-out), the prediction it writes for EVO_CALIBRATE_PREDICT, and the scorecard of an
 * ablation run under the truth at seeds 500…; evaluations per minute and wall times.
 * EVO_CALIBRATE_SCENARIO (hard), _TASKS (60), _SEEDS (2), _BUDGET (default: the CLI's), _JOBS,
 * _PROFILE_REFIT (any value: calibrate --profile-refit).
 * With EVO_CALIBRATE_TARGETS=FILE it fits those targets once instead (the paper world:
 * EVO_CALIBRATE_SCENARIO=hard-math EVO_CALIBRATE_TARGETS=scenarios/worlds/paper-qwen3-8b.targets.json
 * EVO_CALIBRATE_FIT=… EVO_CALIBRATE_OUT=…). Printed, never asserted.
 */
export async function benchCalibrate(): Promise<void> {
  if (env('TARGETS')) return fitGiven(env('TARGETS')!);
  const dir = mkdtempSync(path.join(tmpdir(), 'evo-bench-calibrate-'));
  const scenario = env('SCENARIO') ?? 'hard';
  const tasks = Number(env('TASKS') ?? 60);
  const seeds = Number(env('SEEDS') ?? 2);
  const reps = Number(env('REPS') ?? 10);
  const truth = Object.fromEntries((env('TRUTH') ?? DEFAULT_TRUTH).split(',').map((kv) => kv.split('=')).map(([k, v]) => [k!.trim(), Number(v)]));
  const variants = (env('VARIANTS') ?? DEFAULT_VARIANTS).split(',');
  const truthWorld = path.join(dir, 'truth.json');
  writeFileSync(truthWorld, JSON.stringify({ schemaVersion: 1, name: 'truth', params: truth }));
  const hard = withOverrides(loadScenario(scenario), { sim: { world: { schemaVersion: 1, name: 'truth', params: truth } } });
  console.log(`recovery of ${Object.entries(truth).map(([k, v]) => `${k} = ${v}`).join(', ')} on ${scenario} (${tasks} tasks, ${variants.join(', ')}): ${reps} replications, targets at seeds 1000 + 100 r, calibration at seeds 1–${seeds}; the machine is shared (2 cores, loaded)`);
  const cover = Object.fromEntries(Object.keys(truth).map((k) => [k, { profile: 0, closed: 0, covariance: 0, pinned: 0 }]));
  const t0 = performance.now();
  let firstWorld = '';
  let evals = 0;
  for (let r = 0; r < reps; r++) {
    const rows = [];
    for (const variant of variants) {
      const pooled = new Map<string, { n: number; sum: number }>();
      for (let s = 0; s < seeds; s++) {
        const out = path.join(dir, `truth-${r}-${variant}-${s}`);
        await runScenario(hard, { patch: { variant, seed: 1000 + 100 * r + s, 'stream.tasks': tasks }, outDir: out, report: false });
        for (const [niche, o] of nicheOutcomes(out)) {
          const p = pooled.get(niche) ?? { n: 0, sum: 0 };
          p.n += o.n; p.sum += o.sum;
          pooled.set(niche, p);
        }
      }
      for (const [niche, p] of pooled) rows.push({ variant, niche, accuracy: p.sum / p.n, n: p.n, tasks, source: `simulator at the truth, seeds ${1000 + 100 * r}…` });
    }
    const targets = path.join(dir, `targets-${r}.json`);
    writeFileSync(targets, JSON.stringify({ schemaVersion: 1, targets: rows }));
    const out = path.join(dir, `fit-${r}`, 'world.json');
    const args = ['calibrate', scenario, '--targets', targets, '--out', out, '--seeds', String(seeds), '--seed', '1', '--tasks', String(tasks), '--fit', Object.keys(truth).join(','), '--quiet', '--json',
      ...(env('BUDGET') ? ['--budget', env('BUDGET')!] : []), ...(env('JOBS') ? ['--jobs', env('JOBS')!] : []), ...(r > 0 ? ['--no-cross-validation'] : []),
      ...(env('PROFILE_REFIT') ? ['--profile-refit'] : [])];
    if (r === 0) console.log(`evochamber ${args.join(' ')}`);
    const c = cli(args);
    if (c.status !== 0) { console.log(`replication ${r}: calibrate exited ${c.status}`); continue; }
    const lines = c.stdout.trim().split('\n');
    const fit = JSON.parse(lines.at(-1)!) as FitJson;
    evals += fit.evaluations.paid;
    if (r === 0) { console.log(lines.slice(0, -1).join('\n')); firstWorld = out; }
    const row = fit.parameters.map((p) => {
      const k = truth[p.name]!;
      // An open side (the profile never rose 3.84 on it) bounds nothing: the interval reaches the parameter's bound there.
      const inProfile = k >= (p.open[0] ? p.lo : p.interval[0]) && k <= (p.open[1] ? p.hi : p.interval[1]);
      const inClosed = k >= p.interval[0] && k <= p.interval[1];
      const inCov = p.se !== null && Math.abs(p.value - k) <= 1.96 * p.se;
      cover[p.name]!.profile += inProfile ? 1 : 0;
      cover[p.name]!.closed += inClosed ? 1 : 0;
      cover[p.name]!.covariance += inCov ? 1 : 0;
      cover[p.name]!.pinned += p.pinned ? 1 : 0;
      return `${p.name} ${p.value.toFixed(3)} [${p.open[0] ? '≤ ' : ''}${p.interval[0].toFixed(3)}, ${p.open[1] ? '≥ ' : ''}${p.interval[1].toFixed(3)}]${inProfile ? '' : ' MISS'}`;
    });
    console.log(`replication ${r + 1}: χ² ${fit.chi2.toFixed(2)} (${fit.dof}), p ${fit.pValue.toFixed(3)}, ${fit.converged ? 'converged' : 'NOT converged'}, ${fit.evaluations.paid} evaluations in ${fit.wallSeconds} s: ${row.join('; ')}`);
  }
  const wall = (performance.now() - t0) / 1000;
  for (const [k, c] of Object.entries(cover)) console.log(`coverage of ${k} = ${truth[k]}: profile interval ${c.profile} of ${reps} (${c.closed} counting an open side's last point as its end), covariance ± 1.96 se ${c.covariance} of ${reps}; pinned in ${c.pinned}`);
  console.log(`wall time ${wall.toFixed(0)} s for ${reps} replications (targets and fits; ${evals} evaluations paid: ${(evals / (wall / 60)).toFixed(1)} per minute)`);
  if (!firstWorld) return;
  const predicted = env('PREDICT') ?? 'evochamber,no-codream,symmetric-codream,per-agent-memory,single-agent';
  const pred = path.join(dir, 'prediction.json');
  const p = cli(['predict', firstWorld, scenario, '--variants', predicted, '--tasks', String(tasks), '--seed', '301', '--seeds', '3', '--draws', '6', '--runs', '3', '--out', pred]);
  console.log(`\n${p.stdout.trim()}`);
  // The "measurement": an ablation under the truth, at seeds the prediction never ran, scored against it.
  const s = cli(['ablate', scenario, '--world', truthWorld, '--variants', predicted, '--tasks', String(tasks), '--seeds', '3', '--set', 'seed=500', '--score', pred, '--quiet', '--no-report', '--out', path.join(dir, 'measured')]);
  console.log(`\n${s.stdout.trim()}`);
}

/** One calibration of given targets (the paper world), its prediction for EVO_CALIBRATE_PREDICT on every scenario named. */
function fitGiven(targets: string): void {
  const dir = mkdtempSync(path.join(tmpdir(), 'evo-bench-calibrate-'));
  const scenario = env('SCENARIO') ?? 'hard-math';
  const out = env('OUT') ?? path.join(dir, 'world.json');
  const args = ['calibrate', scenario, '--targets', targets, '--out', out, '--seeds', env('SEEDS') ?? '3', '--quiet', '--json',
    ...(env('FIT') ? ['--fit', env('FIT')!] : []), ...(env('BUDGET') ? ['--budget', env('BUDGET')!] : []), ...(env('TASKS') ? ['--tasks', env('TASKS')!] : [])];
  console.log(`evochamber ${args.join(' ')}`);
  const t0 = performance.now();
  const r = cli(args);
  const wall = (performance.now() - t0) / 1000;
  if (r.status !== 0) { console.log(`calibrate exited ${r.status}`); return; }
  const lines = r.stdout.trim().split('\n');
  console.log(lines.slice(0, -1).join('\n'));
  const fit = JSON.parse(lines.at(-1)!) as FitJson;
  console.log(`wall time ${wall.toFixed(1)} s for ${fit.evaluations.total} evaluations (${fit.evaluations.paid} paid): ${fit.evaluationsPerMinute} evaluations per minute`);
  const predict = env('PREDICT');
  if (predict) {
    const p = cli(['predict', out, ...(env('PREDICT_SCENARIOS') ?? scenario).split(','), '--variants', predict, '--seeds', env('PREDICT_SEEDS') ?? '3', '--out', path.join(path.dirname(out), `${path.basename(out, '.json')}.prediction.json`)]);
    console.log(p.stdout.trim());
  }
}
