import { availableParallelism } from 'node:os';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { claimOutputDir } from '../../store/output-dir';
import cliProgress from 'cli-progress';
import { calibrate, postSearchEvaluations, unmovableTarget, type CalibrationResult } from '../../engine/sweep/calibrate/calibrate';
import { EvaluationInterrupted } from '../../engine/sweep/calibrate/evaluate';
import { BASELINE_VARIANTS, checkStreamLengths, loadTargets, targetsFileOf, targetsFromRuns, TargetsError, type Target } from '../../engine/sweep/calibrate/targets';
import { loadScenario } from '../../engine/scenario/scenario';
import { fitTables, renderFitPage, type FitReportData } from '../../report/fit-report';
import { scenarioWorld } from '../../sim/sim-plugin';
import { streamGroups, worldWithGroupValues } from '../world-groups';
import { parseFitName, WORLD_SCHEMA_VERSION, type WorldFile, type WorldFitParameter } from '../../sim/sim-world-file';
import { RUN_CHILD_ENTRY } from '../composition';
import { EXIT } from '../exit-codes';
import { UsageError, intFlag } from '../usage';
import { applyWorldFlag, WORLD_FLAG_OPTIONS } from '../world-flag';

/** Help text of `evochamber calibrate`. */
export const CALIBRATE_HELP = `Usage: evochamber calibrate <scenario.json> --targets FILE --out WORLD.json [options]
       evochamber calibrate <scenario.json> --out WORLD.json [options] --from-runs DIR [DIR …]

Fit the simulated model's parameters so that the simulated accuracy of each target's variant
matches the target (docs/calibration.md): objective Σ (sim − target)²/(se² + se_sim²), the
same seeds and streams at every evaluation (common random numbers), Nelder–Mead; then a local
response surface for the parameters' covariance, each parameter's profile along its valley, the
convergence rule, χ² with its p-value, and each target left out in turn and predicted.
Writes the world (WORLD.json), its fit report (WORLD.fit.json and WORLD.fit.html) and the journal
of evaluations (WORLD.journal.jsonl): run the same command again after an interruption and it
pays for nothing twice and ends at the same world.

Options:
  --targets FILE    measured accuracies (docs/calibration.md, "Targets")
  --from-runs DIR …  build the targets from run (or ablation) directories instead: per-niche
                    accuracy and counts (DIR DIR, DIR,DIR or the flag repeated), each row with
                    the scenario its runs ran and their stream length; written to
                    WORLD.targets.json (the scenarios to WORLD.scenario-*.json). Only the
                    baseline variants (${BASELINE_VARIANTS.join(', ')}) are taken
  --variants a,b    with --from-runs: the variants to take instead of the baselines
  --out FILE        the world file to write (required)
  --fit a,b@niche   parameters to fit: name (global) or name@niche (that niche only); default:
                    base@<niche> for every niche a target names (base when only "all"), plus
                    coverage when the targets name two variants or more
  --seeds N         seeds of every evaluation, counted up from --seed (default 2)
  --seed N          the first seed (default: the scenario's)
  --tasks N         tasks per run (default: the scenario's stream); a target that records
                    another stream length (its "tasks") is refused
  --budget N        evaluations in all: the search's, then 2 a parameter for the response
                    surface, Gauss–Newton steps while room is left (one kept in reserve:
                    2 a parameter + 1), the profile's points a parameter, and at most one
                    a target left out (a refit near the fit is read off the response
                    surface and pays none; default 40 + the rest)
  --profile-points N  points of each parameter's profile (default 4: ±1.5 and ±3 se)
  --profile-refit   re-fit the other parameters at each profile point (one Gauss–Newton step
                    from its own evaluation: one more evaluation a point); default: they
                    follow the valley the fit's response surface predicts
  --no-cross-validation  skip leaving each target out (saves up to one evaluation a target)
  --jobs N          worker processes (default: the core count; 1 runs in this process)
  --world FILE      the world to start from (default: the scenario's sim.world)
  --name NAME       the world's name (default: the --out file's name)
  --json            print the fit report as one JSON line last
  --quiet           no progress bar

Exit code 0 when the fit is written, 1 on bad input (a malformed targets file, an unknown variant
or niche, a target no fitted parameter can move: one line naming it), 2 on a bad command line,
4 when interrupted (run the same command again to resume).
`;

/** `evochamber calibrate`. */
export async function calibrateCommand(argv: string[]): Promise<number | void> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      targets: { type: 'string' }, 'from-runs': { type: 'string', multiple: true }, out: { type: 'string' }, fit: { type: 'string' },
      seeds: { type: 'string' }, seed: { type: 'string' }, tasks: { type: 'string' }, budget: { type: 'string' }, jobs: { type: 'string' },
      name: { type: 'string' }, json: { type: 'boolean' }, quiet: { type: 'boolean' }, help: { type: 'boolean', short: 'h' }, ...WORLD_FLAG_OPTIONS,
      variants: { type: 'string' }, 'profile-points': { type: 'string' }, 'profile-refit': { type: 'boolean' }, 'no-cross-validation': { type: 'boolean' },
    },
  });
  if (values.help) { process.stdout.write(CALIBRATE_HELP); return; }
  const fromRuns = (values['from-runs'] ?? []).flatMap((d) => d.split(',')).filter(Boolean);
  // `--from-runs a b c`: the directories after the first are positionals after the scenario.
  if (fromRuns.length > 0) fromRuns.push(...positionals.splice(1));
  if (positionals.length !== 1) throw new UsageError('calibrate takes exactly one scenario file', CALIBRATE_HELP);
  if ((values.targets === undefined) === (fromRuns.length === 0)) throw new UsageError('give --targets FILE or --from-runs DIR (one of them)', CALIBRATE_HELP);
  if (!values.out) throw new UsageError('--out WORLD.json is required', CALIBRATE_HELP);
  const seedCount = intFlag(values.seeds, '--seeds', 1) ?? 2;
  const jobs = intFlag(values.jobs, '--jobs', 1) ?? availableParallelism();
  if (values.variants !== undefined && fromRuns.length === 0) throw new UsageError('--variants applies to --from-runs (a targets file names its own)', CALIBRATE_HELP);
  const profilePoints = intFlag(values['profile-points'], '--profile-points', 2) ?? 4;
  const leaveOneOut = !values['no-cross-validation'];
  const profileRefit = values['profile-refit'] === true;
  const out = path.resolve(values.out);
  const stem = out.replace(/\.json$/, '');
  const loaded = applyWorldFlag(loadScenario(positionals[0]!), values.world);
  const runTargets = fromRuns.length ? targetsFromRuns(fromRuns, {
    variants: values.variants?.split(',').map((v) => v.trim()).filter(Boolean),
    scenarioPrefix: `${path.basename(stem)}.scenario-`, scenarioDir: path.dirname(out),
  }) : undefined;
  if (runTargets?.leftOut.size) {
    const list = [...runTargets.leftOut].map(([v, n]) => `${v} ×${n}`).join(', ');
    process.stderr.write(`calibrate: --from-runs left out ${[...runTargets.leftOut.values()].reduce((a, b) => a + b, 0)} runs of variants that are not ${values.variants ? 'named in --variants' : 'baselines'} (${list})${values.variants ? '' : '; name them in --variants to fit on them'}\n`);
  }
  const targets: Target[] = runTargets?.targets ?? loadTargets(values.targets!, loaded);
  const { inline, world: baseWorld } = scenarioWorld(loaded.scenario.sim);
  const fitNames = values.fit?.split(',').map((s) => s.trim()).filter(Boolean) ?? defaultFit(targets);
  if (fitNames.length === 0) throw new UsageError('--fit needs at least one parameter');
  let fit: WorldFitParameter[];
  try {
    fit = fitNames.map((n) => parseFitName(n, baseWorld, inline));
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const tasks = intFlag(values.tasks, '--tasks', 1);
  checkStreamLengths(targets, values.targets ?? '--from-runs', tasks);
  const after = postSearchEvaluations(fit.length, targets.length, { profilePoints, profileRefit, leaveOneOut });
  const budget = intFlag(values.budget, '--budget', 3) ?? 40 + after + 2 * fit.length + 1;
  const least = after + 3 * fit.length + 3;
  if (budget < least) throw new UsageError(`--budget ${budget} is too small for ${fit.length} parameters and ${targets.length} targets: the surface, profiles and cross-validation take ${after}, one Gauss–Newton step ${2 * fit.length + 1}, the search at least ${fit.length + 2} (give ${least} or more)`);
  const unmovable = unmovableTarget(targets, fit);
  if (unmovable) {
    throw new TargetsError(values.targets ?? '--from-runs', `targets[${unmovable.index}]`,
      `no fitted parameter can move ${unmovable.variant} on ${unmovable.niche} (fitted: ${fitNames.join(', ')}; add a global parameter or one @${unmovable.niche})`);
  }
  const seed0 = intFlag(values.seed, '--seed', 0) ?? loaded.scenario.seed;
  const seeds = Array.from({ length: seedCount }, (_, i) => seed0 + i);
  const replayed = seeds.filter((s) => runTargets?.seeds.has(s));
  if (replayed.length) process.stderr.write(`calibrate: seed${replayed.length > 1 ? 's' : ''} ${replayed.join(', ')} of the calibration ${replayed.length > 1 ? 'are' : 'is'} also the runs': the fit replays their luck (give --seed ${Math.max(...runTargets!.seeds) + 100} for disjoint seeds)\n`);
  const worldName = values.name ?? path.basename(stem);
  claimCalibrateOutputs(out, stem, values.targets === undefined, [...(runTargets?.scenarios.keys() ?? [])]);
  const targetsFile = values.targets ?? `${stem}.targets.json`;
  if (runTargets) {
    for (const [f, config] of runTargets.scenarios) writeFileSync(path.join(path.dirname(out), f), `${JSON.stringify(config, null, 2)}\n`);
    writeFileSync(targetsFile, `${JSON.stringify(targetsFileOf(targets, `built by evochamber calibrate --from-runs ${fromRuns.join(' ')}`), null, 2)}\n`);
  }
  const groups = streamGroups([...new Set(targets.map((t) => t.loaded))]);
  const worldOf = (v: readonly number[]) => worldWithGroupValues(baseWorld, fit, v, groups);

  const stop = new AbortController();
  const onSignal = () => stop.abort();
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const bar = !values.quiet && process.stderr.isTTY
    ? new cliProgress.SingleBar({ stream: process.stderr, format: 'calibrate {bar} {value}/{total} evaluations | χ² best {best} | eta {eta_formatted}', hideCursor: true }, cliProgress.Presets.shades_classic)
    : null;
  bar?.start(budget, 0, { best: '-' });
  const t0 = performance.now();
  let result: CalibrationResult;
  try {
    result = await calibrate({
      targets, parameters: fit, seeds, budget, jobs, childEntry: RUN_CHILD_ENTRY, stop: stop.signal, profilePoints, profileRefit, leaveOneOut,
      ...(tasks !== undefined ? { patch: { 'stream.tasks': tasks } } : {}),
      journal: `${stem}.journal.jsonl`, workDir: `${stem}.runs`,
      parameterPatch: (v) => ({ 'sim.world': { schemaVersion: WORLD_SCHEMA_VERSION, name: worldName, ...worldOf(v) } }),
      onEvaluation: (e) => {
        bar?.update(e.done, { best: e.best.toFixed(2) });
        if (!bar && !values.quiet && e.done % 10 === 0) process.stderr.write(`calibrate: ${e.done} evaluations, best χ² ${e.best.toFixed(2)}\n`);
      },
    });
  } catch (err) {
    if (err instanceof EvaluationInterrupted) {
      bar?.stop();
      process.stderr.write(`calibrate: interrupted; the journal keeps every evaluation paid — run the same command again to continue\n`);
      return EXIT.interrupted;
    }
    throw err;
  } finally {
    bar?.stop();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
  const wallSeconds = (performance.now() - t0) / 1000;
  const world: WorldFile = {
    schemaVersion: WORLD_SCHEMA_VERSION, name: worldName,
    description: `Fitted by evochamber calibrate on ${loaded.scenario.name} against ${path.basename(targetsFile)}`,
    ...worldOf(result.values),
    fit: {
      scenario: loaded.scenario.name, targets: path.basename(targetsFile), seeds, tasks: tasks ?? null,
      chi2: result.chi2, dof: result.dof, pValue: result.pValue, converged: result.converged,
      parameters: result.parameters.map((p) => ({ name: p.name, value: p.value, se: Number.isFinite(p.se) ? p.se : null, lo: p.lo, hi: p.hi, interval: p.interval, pinned: p.pinned })),
      covariance: result.covariance,
      notPinned: result.notPinned,
    },
  };
  writeFileSync(out, `${JSON.stringify(world, null, 2)}\n`);
  const report: FitReportData = {
    schemaVersion: 1, world: worldName, scenario: loaded.scenario.name, targetsFile: path.basename(targetsFile), seeds, tasks: tasks ?? null,
    chi2: result.chi2, dof: result.dof, pValue: result.pValue, converged: result.converged, convergence: result.convergence,
    covariance: result.covariance, heldOut: result.heldOut, evaluations: { ...result.evaluations, budget },
    wallSeconds: Math.round(wallSeconds * 10) / 10,
    evaluationsPerMinute: result.evaluations.paid > 0 ? Math.round((result.evaluations.paid / wallSeconds) * 600) / 10 : 0,
    parameters: result.parameters, targets: result.targets, notPinned: result.notPinned, undetermined: result.undetermined, unmoved: result.unmoved,
    ...(result.betterInProfile ? { betterInProfile: result.betterInProfile } : {}),
  };
  writeFileSync(`${stem}.fit.json`, `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(`${stem}.fit.html`, (await renderFitPage(report)).html);
  process.stdout.write(`${fitTables(report)}\n`);
  process.stdout.write(`world: ${out}\nreport: ${stem}.fit.html (${report.evaluations.paid} evaluations paid in ${report.wallSeconds} s, ${report.evaluationsPerMinute}/min)\n`);
  if (values.json) process.stdout.write(`${JSON.stringify(report)}\n`);
  return EXIT.ok;
}

/** The default parameters: each target niche's own `base` (or the global one), and `coverage` when two variants or more are targets. */
export function defaultFit(targets: readonly Target[]): string[] {
  const niches = [...new Set(targets.map((t) => t.niche).filter((n) => n !== 'all'))];
  const variants = new Set(targets.map((t) => t.variant));
  const bases = niches.length === 0 ? ['base'] : niches.map((n) => `base@${n}`);
  return [...bases, ...(variants.size >= 2 ? ['coverage'] : [])];
}

/**
 * The files calibrate writes beside `--out` (the world, its fit report, journal, runs and built
 * targets) are refused, before anything is paid for, when one of them is a file evochamber did not
 * write (store/output-dir.ts); the folder itself may hold anything else. With --from-runs, the
 * scenarios its runs ran are written beside them too.
 */
function claimCalibrateOutputs(out: string, stem: string, buildsTargets: boolean, scenarios: readonly string[]): void {
  const names = [out, `${stem}.fit.html`, `${stem}.fit.json`, `${stem}.journal.jsonl`, `${stem}.runs`, ...(buildsTargets ? [`${stem}.targets.json`, ...scenarios] : [])].map((f) => path.basename(f));
  claimOutputDir(path.dirname(out), { flag: '--out', names, shared: true });
}
