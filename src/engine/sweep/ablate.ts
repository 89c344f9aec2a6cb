import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { checkOutputDir, recordOutputDir, removeOwnedOutputs } from '../../store/output-dir';
import { RunLock } from '../../store/run-lock';
import { systemClock } from '../../core/clock';
import { customAlphabet } from 'nanoid';
import { getPreset } from '../scenario/presets';
import { parseScenario, type LoadedScenario } from '../scenario/scenario';
import { applyScenarioPatch, pathsOutside, refuseScenarioOptions, SWEEP_SETTINGS } from '../scenario/apply-patch';
import { mergePatches, scenarioPatch, type PatchPath, type ScenarioPatch } from '../../core/scenario-patch';
import type { SweepSettings } from '../scenario/sweep-settings';
import { ABLATION_PLAN_FILE, ABLATION_PLAN_SCHEMA_VERSION, readAblationPlan, writeAblationPlan } from '../../store/ablation-plan-file';
import { jobDir, runKey, runLocalSweep, type LocalSweepOptions, type LocalSweepResult, type SweepJob } from './sweep-local';
import type { EndpointUsage } from '../../llm/openai/endpoint';
import type { RunSummary } from '../loop/summary';
import { roundUsd } from '../../llm/pricing';
import { deadlineSchedule, describeDeadline, forecastSweep, formatDeadline, prioritiesFor, soloComparison, type DeadlineReport, type PriorityPolicy, type SoloComparison } from './sweep-schedule';
import type { SweepPlan } from './plan';
import { stat, type Stat } from '../../core/stats/mean-sd';
import { formatPairedTable, type PairedStats } from '../../core/stats/paired-comparison';

export { stat, type Stat };

export { ABLATION_PLAN_FILE };

/** What `resume` may change in an ablation's patch: its budget, the world of the runs not started, and how runs spread on this machine. */
const RESUME_MAY_CHANGE: readonly PatchPath[] = ['sweepBudget', 'sim.world', 'sweep.jobs', 'sweep.parallel'];

const suffix = customAlphabet('0123456789abcdefghijklmnopqrstuvwxyz', 6);

/** The variants `ablate` runs when none are named: the full system, its ablations, and the baselines. */
export const DEFAULT_ABLATION_VARIANTS = [
  'evochamber', 'no-codream', 'no-lifecycle', 'no-team', 'no-leadlearn', 'no-population', 'symmetric-codream',
  'per-agent-memory', 'shared-memory', 'structure-only', 'individual', 'self-consistency', 'single-agent',
] as const;


/** One run's figures, as a paper table's per-seed column needs them. */
export interface SeedResult {
  readonly seed: number;
  readonly accuracy: number;
  readonly perNiche: Record<string, number>;
  readonly stableSpecialists: number;
  /** Prompt plus completion tokens, and completion tokens alone. */
  readonly tokens: number;
  readonly completionTokens: number;
  /** US dollars at the scenario's prices; absent without prices. */
  readonly usd?: number;
  /** Virtual seconds the run took (virtual time only). */
  readonly virtualSeconds?: number;
}

/** One variant's results over the seeds. */
export interface VariantResult {
  readonly accuracy: Stat;
  readonly perNiche: Record<string, Stat>;
  readonly stableSpecialists: Stat;
  /** Tokens per run (prompt plus completion), and completion tokens alone. */
  readonly tokens: Stat;
  readonly completionTokens: Stat;
  /** US dollars per run at the scenario's prices; absent without prices. */
  readonly usd?: Stat;
  /** Each finished seed's own figures, in seed order. */
  readonly perSeed: SeedResult[];
  /** Run directories, one per seed that finished, in seed order. */
  readonly runs: string[];
  /** Queued ablations: the host each of `runs` lives on (same order). */
  readonly hosts?: string[];
  /** Seeds whose run failed after its retries; left out of the figures above. */
  readonly failedSeeds?: number[];
  /** Seeds whose run the sweep's budget kept from starting; left out of the figures above. */
  readonly notRunSeeds?: number[];
}

/** What `ablate` writes to `ablation.json` and prints with `--json`. */
export interface AblationResult {
  readonly variants: Record<string, VariantResult>;
  readonly seeds: number;
  readonly scenario: string;
  readonly seedList: number[];
  readonly outDir: string;
  /** Runs that failed after their retries (queued ablations), each also named in its variant's `failedSeeds`. */
  readonly failed?: FailedRun[];
  /** Runs the sweep's budget kept from starting, each also named in its variant's `notRunSeeds`. */
  readonly notRun?: { readonly variant: string; readonly seed: number }[];
  /** How the runs ran on this machine (local ablations). */
  readonly execution?: SweepExecution;
  /** `--deadline`: the windows chosen, and each variant's accuracy against it alone at in-flight 1. */
  readonly deadline?: DeadlineReport & { readonly solo?: Record<string, SoloComparison> };
  /** Each variant against a reference, task by task (added by the `ablate` command from the runs' logs; docs/reports.md). */
  readonly paired?: PairedStats;
}

/** How a local ablation's runs ran, and what the shared server did. */
export interface SweepExecution {
  readonly mode: LocalSweepResult['mode'];
  readonly shared: LocalSweepResult['shared'];
  /** Speculative completion was switched off in every run (their timing is shared). */
  readonly speculativeOff: boolean;
  /** Virtual time: the sweep's virtual seconds on its one server, its output tokens/s and utilization. */
  readonly virtual?: { readonly profile: string; readonly virtualSeconds: number; readonly tokensPerSecond: number; readonly utilization: number | null; readonly generatedTokens: number };
  /** HTTP: the shared pool's per-endpoint usage over every run. */
  readonly endpoints?: Record<string, EndpointUsage>;
  /** `parallel: auto`: where the number of runs at once ended, and how many times it moved. */
  readonly window?: { readonly final: number; readonly changes: number };
  /** The sweep's budget, when it kept runs from starting. */
  readonly budgetStop?: LocalSweepResult['budgetStop'];
  /** `--priorities critical-path`: the policy the shared server's queue was ordered by. */
  readonly priorities?: PriorityPolicy;
}

/**
 * Options of an ablation. How its runs run is the scenario's `sweep` section, set in the patch like
 * any setting (`sweep.jobs` worker processes for the zero-time simulator, `sweep.parallel` runs at
 * once over one shared backend, `sweep.priorities`, `sweep.deadlineHours`: sweep-settings.ts).
 */
export interface AblationOptions extends LocalSweepOptions {
  readonly variants?: readonly string[];
  /** Plan's prediction of the runs, when made already; otherwise plan's pilots run first when `sweep.priorities` or `sweep.deadlineHours` needs it. */
  readonly forecast?: SweepPlan;
  /** Number of seeds, counted up from the scenario's seed. */
  readonly seeds?: number;
  /** Where the runs and ablation.json go (default runs/ablate-<scenario>-<id>). */
  readonly outDir?: string;
  /** Replace an ablation already in `outDir` (only what evochamber wrote there; never a live one's). */
  readonly force?: boolean;
}


/** What an ablation will run: validated variants, the seed list and where its output goes. */
export interface AblationPlan {
  readonly scenario: string;
  readonly variants: readonly string[];
  readonly seedList: readonly number[];
  /** Absolute path of the directory that receives ablation.json (and, locally, the runs). */
  readonly outDir: string;
}

/** A run that did not produce a summary (queued ablations only: its job failed after its retries). */
export interface FailedRun {
  readonly variant: string;
  readonly seed: number;
  /** One line: why the last attempt failed. */
  readonly error: string;
  readonly attempts: number;
}

export { runKey };

/** Validate the variants (unknown names throw before anything runs) and fix the seeds and output directory. */
export function planAblation(loaded: LoadedScenario, opts: Pick<AblationOptions, 'variants' | 'seeds' | 'outDir'> & { readonly id?: string } = {}): AblationPlan {
  const variants = [...(opts.variants ?? DEFAULT_ABLATION_VARIANTS)];
  for (const v of variants) getPreset(v);
  const n = opts.seeds ?? 3;
  const seedList = Array.from({ length: n }, (_, i) => loaded.scenario.seed + i);
  const outDir = path.resolve(opts.outDir ?? path.join('runs', `ablate-${loaded.scenario.name}-${opts.id ?? suffix()}`));
  return { scenario: loaded.scenario.name, variants, seedList, outDir };
}

/**
 * Aggregate finished runs into mean ± sd per variant. A seed listed in `failed` is left out of its
 * variant's figures and named in `failedSeeds`; every other (variant, seed) of the plan must have a summary.
 * `hosts` (queued ablations) gives the machine each run directory lives on.
 */
export function aggregateAblation(
  plan: AblationPlan,
  results: ReadonlyMap<string, RunSummary>,
  extra: { readonly failed?: readonly FailedRun[]; readonly hosts?: ReadonlyMap<string, string>; readonly notRun?: readonly { variant: string; seed: number }[]; readonly execution?: SweepExecution } = {},
): AblationResult {
  const failed = extra.failed ?? [];
  const notRun = extra.notRun ?? [];
  const out: Record<string, VariantResult> = {};
  for (const variant of plan.variants) {
    const failedSeeds = plan.seedList.filter((s) => failed.some((f) => f.variant === variant && f.seed === s));
    const notRunSeeds = plan.seedList.filter((s) => notRun.some((f) => f.variant === variant && f.seed === s));
    const seeds = plan.seedList.filter((s) => !failedSeeds.includes(s) && !notRunSeeds.includes(s));
    const runs = seeds.map((s) => {
      const r = results.get(runKey(variant, s));
      if (!r) throw new Error(`ablation: no result for ${variant} seed ${s}`);
      return r;
    });
    const niches = [...new Set(runs.flatMap((r) => Object.keys(r.perNiche)))];
    const perSeed = runs.map((r, i) => seedResult(seeds[i]!, r));
    const priced = perSeed.length > 0 && perSeed.every((x) => x.usd !== undefined);
    out[variant] = {
      accuracy: stat(runs.map((r) => r.accuracy)),
      perNiche: Object.fromEntries(niches.map((ni) => [ni, stat(runs.map((r) => r.perNiche[ni] ?? 0))])),
      stableSpecialists: stat(runs.map((r) => r.stableSpecialists ?? 0)),
      tokens: stat(perSeed.map((x) => x.tokens)),
      completionTokens: stat(perSeed.map((x) => x.completionTokens)),
      ...(priced ? { usd: stat(perSeed.map((x) => x.usd!)) } : {}),
      perSeed,
      runs: runs.map((r) => r.runDir),
      ...(extra.hosts ? { hosts: seeds.map((s) => extra.hosts!.get(runKey(variant, s)) ?? '') } : {}),
      ...(failedSeeds.length ? { failedSeeds } : {}),
      ...(notRunSeeds.length ? { notRunSeeds } : {}),
    };
  }
  return {
    variants: out, seeds: plan.seedList.length, scenario: plan.scenario, seedList: [...plan.seedList], outDir: plan.outDir,
    ...(failed.length ? { failed: [...failed] } : {}),
    ...(notRun.length ? { notRun: notRun.map((n) => ({ variant: n.variant, seed: n.seed })) } : {}),
    ...(extra.execution ? { execution: extra.execution } : {}),
  };
}

/** One finished run's figures for ablation.json. */
function seedResult(seed: number, r: RunSummary): SeedResult {
  const t = r.tokens?.total ?? { calls: 0, promptTokens: 0, completionTokens: 0 };
  return {
    seed, accuracy: r.accuracy, perNiche: { ...r.perNiche }, stableSpecialists: r.stableSpecialists ?? 0,
    tokens: t.promptTokens + t.completionTokens, completionTokens: t.completionTokens,
    // Absent (left out of ablation.json) without prices, and outside virtual time.
    usd: t.costNanoUsd === undefined ? undefined : roundUsd(t.costNanoUsd / 1e9),
    virtualSeconds: r.virtualSeconds,
  };
}

/** Write `ablation.json` into the plan's output directory. */
export function writeAblation(result: AblationResult): void {
  mkdirSync(result.outDir, { recursive: true });
  writeFileSync(path.join(result.outDir, 'ablation.json'), `${JSON.stringify(result, null, 2)}\n`);
}

/**
 * Run each variant over the same seeds and aggregate accuracy (overall and per niche) and stable
 * specialists as mean ± sd. Presets are validated before anything runs. Writes ablation.json.
 */
export async function runAblation(loaded: LoadedScenario, opts: AblationOptions = {}): Promise<AblationResult> {
  const { result: r } = await runAblationResumable(loaded, opts);
  if (!r) throw new Error('the ablation was interrupted; continue it with "evochamber resume <its directory>"');
  return r;
}

/** What an ablation writes into its directory (store/output-dir.ts): its files, its runs' folders, its report. */
export function ablationOutputs(plan: AblationPlan): string[] {
  const runs = plan.variants.flatMap((v) => plan.seedList.map((s) => path.basename(jobDir(plan.outDir, v, s))));
  return ['ablation.json', ABLATION_PLAN_FILE, ABLATION_LOCK, 'report', 'export', 'solo-in-flight-1', ...runs];
}

/**
 * The lock an ablation's process holds on its directory while it runs (pid and host, as a run's
 * `run.lock`): `--force` and `resume` refuse a directory a live ablation is writing, even between
 * two of its runs, when no run of it holds a lock of its own.
 */
export const ABLATION_LOCK = 'ablation.lock';

/** Hold the ablation lock on `dir` while `work` runs. */
async function holdingAblationLock<T>(dir: string, work: () => Promise<T>): Promise<T> {
  const lock = RunLock.acquire(dir, systemClock.isoNow(), ABLATION_LOCK);
  try {
    return await work();
  } finally {
    lock.release();
  }
}

/** An ablation directory written before output manifests: it holds ablation.json or its plan. */
const isAblationOutput = (dir: string) => existsSync(path.join(dir, 'ablation.json')) || existsSync(path.join(dir, ABLATION_PLAN_FILE));

/**
 * Like runAblation, but an interrupted ablation (a stop request) gives a null result instead of
 * throwing; `resumeAblation` continues it. The plan is written first, so a killed one resumes too.
 */
export async function runAblationResumable(loaded: LoadedScenario, opts: AblationOptions = {}): Promise<{ result: AblationResult | null; outDir: string }> {
  refuseScenarioOptions(opts, 'runAblation', SWEEP_SETTINGS);
  const swept = applyScenarioPatch(loaded, opts.patch);
  const plan = planAblation(swept, opts);
  const { outDir } = plan;
  const outputs = ablationOutputs(plan);
  // A directory of someone else's files is refused, --force or not, before anything is written.
  checkOutputDir(outDir, { flag: '--out', names: outputs, ownedBefore: isAblationOutput });
  if (existsSync(path.join(outDir, ABLATION_PLAN_FILE)) && !opts.force) {
    throw new Error(`${outDir} already holds an ablation: continue it with "evochamber resume ${outDir}", replace it with --force, or pick a new --out`);
  }
  // --force never replaces an ablation that a live process is still writing.
  if (existsSync(outDir)) RunLock.refuseLive(outDir, ABLATION_LOCK);
  // The schedule first: a deadline no window meets is refused before anything is written.
  const schedule = await scheduleAblation(loaded, plan, opts);
  if (opts.force) removeOwnedOutputs(outDir);
  recordOutputDir(outDir, outputs);
  return holdingAblationLock(outDir, async () => {
    writeAblationPlan(outDir, {
      schemaVersion: ABLATION_PLAN_SCHEMA_VERSION, config: loaded.scenario as unknown as Record<string, unknown>, scenarioDir: loaded.dir,
      variants: [...plan.variants], seeds: plan.seedList.length, patch: opts.patch ?? {},
    });
    return { result: await executeAblation(loaded, plan, opts, false, schedule), outDir };
  });
}

/**
 * Continue an interrupted ablation from its directory: finished runs are read back, interrupted
 * or crashed ones resumed, missing ones run; then ablation.json is written. Null when stopped again.
 */
export async function resumeAblation(dir: string, opts: Omit<AblationOptions, 'variants' | 'seeds' | 'outDir'> = {}): Promise<AblationResult | null> {
  refuseScenarioOptions(opts, 'resumeAblation', SWEEP_SETTINGS);
  const outDir = path.resolve(dir);
  const at = path.join(outDir, ABLATION_PLAN_FILE);
  RunLock.refuseLive(outDir, ABLATION_LOCK);
  let file = readAblationPlan(outDir);
  // Only the sweep's budget, the world (`resume --world`, for the runs not started yet) and how the
  // runs are spread on this machine may change on the way.
  const refused = pathsOutside(opts.patch ?? {}, RESUME_MAY_CHANGE);
  if (refused.length) throw new Error(`${dir}: resuming an ablation may change only ${RESUME_MAY_CHANGE.join(', ')}, not ${refused.join(', ')}`);
  // A new sweep budget replaces the old one for good (as a run's does in run.json): a later resume keeps it.
  if (opts.patch && Object.keys(opts.patch).length > 0) {
    file = { ...file, patch: mergePatches(file.patch, opts.patch) };
    writeAblationPlan(outDir, file);
  }
  const loaded = parseScenario(file.config, at, file.scenarioDir);
  const plan = planAblation(applyScenarioPatch(loaded, file.patch), { variants: file.variants, seeds: file.seeds, outDir });
  return holdingAblationLock(outDir, () => executeAblation(loaded, plan, { ...opts, patch: file.patch }, true));
}

/** The sweep's priorities and deadline windows (plan's pilots when either is on); throws DeadlineError when no window meets the deadline. */
async function scheduleAblation(loaded: LoadedScenario, plan: AblationPlan, opts: AblationOptions) {
  const settings = sweepSettings(loaded, opts.patch);
  const on = settings.priorities === 'critical-path';
  const forecast = on || settings.deadlineHours !== undefined ? await forecastSweep(loaded, { ...opts, variants: plan.variants, seeds: plan.seedList.length }) : undefined;
  const priorities = prioritiesFor(settings.priorities, forecast);
  const deadline = settings.deadlineHours !== undefined ? deadlineSchedule(forecast!, settings.deadlineHours, on) : undefined;
  return { priorities, deadline, settings };
}

/** The sweep's own settings (the scenario's `sweep`, with the patch applied). */
function sweepSettings(loaded: LoadedScenario, patch: ScenarioPatch | undefined): SweepSettings {
  return applyScenarioPatch(loaded, patch).scenario.sweep ?? {};
}

async function executeAblation(loaded: LoadedScenario, plan: AblationPlan, opts: AblationOptions, resume: boolean, decided?: Awaited<ReturnType<typeof scheduleAblation>>): Promise<AblationResult | null> {
  const { priorities, deadline, settings } = decided ?? await scheduleAblation(loaded, plan, opts);
  if (deadline) opts.onNote?.(describeDeadline(deadline.report));
  // A deadline's window is the run's own patch (the test checks each run ran at it).
  const jobs = plan.variants.flatMap((variant) => plan.seedList.map((seed): SweepJob => {
    const own = deadline?.settings.get(runKey(variant, seed));
    return { variant, seed, outDir: jobDir(plan.outDir, variant, seed), patch: own };
  }));
  // A deadline's model starts every run at once (unless the sweep says how many).
  const patch = mergePatches(opts.patch, scenarioPatch({ 'sweep.parallel': deadline && settings.parallel === undefined ? jobs.length : undefined }));
  const sweep = await runLocalSweep(loaded, jobs, { ...opts, patch, runPriorities: priorities }, resume);
  if (sweep.interrupted) return null;
  const solo = deadline ? await soloComparison(loaded, plan, deadline.report, sweep.results, opts, resume) : undefined;
  const v = sweep.server;
  const execution: SweepExecution = {
    mode: sweep.mode, shared: sweep.shared, speculativeOff: sweep.speculativeOff,
    ...(v ? { virtual: { profile: v.profile, virtualSeconds: Math.round(v.virtualSeconds * 1000) / 1000, tokensPerSecond: Math.round(v.tokensPerSecond * 10) / 10, utilization: v.utilization === null ? null : Math.round(v.utilization * 1e4) / 1e4, generatedTokens: v.generatedTokens } } : {}),
    ...(sweep.endpoints ? { endpoints: sweep.endpoints } : {}),
    ...(sweep.window ? { window: { final: sweep.window.final, changes: sweep.window.changes.length } } : {}),
    ...(sweep.budgetStop ? { budgetStop: sweep.budgetStop } : {}),
    ...(priorities && sweep.shared !== 'none' ? { priorities: 'critical-path' as const } : {}),
  };
  const aggregated = aggregateAblation(plan, sweep.results, { notRun: sweep.notRun, execution });
  const result = deadline ? { ...aggregated, deadline: { ...deadline.report, ...(solo ? { solo } : {}) } } : aggregated;
  writeAblation(result);
  return result;
}

/**
 * The ablation as a plain-text table: mean ± sd accuracy overall and per niche, stable specialists.
 * A variant with failed seeds says so on its row (`FAILED` when no seed finished), and each failed run
 * gets a line with its error, so a failure is never silently dropped.
 */
export function formatAblationTable(r: AblationResult): string {
  const names = Object.keys(r.variants);
  const niches = [...new Set(names.flatMap((v) => Object.keys(r.variants[v]!.perNiche)))];
  // One finished seed has no spread: print the value alone, never "± 0.000".
  const cell = (s: Stat, n: number, digits = 3) => (n > 1 ? `${s.mean.toFixed(digits)}±${s.sd.toFixed(digits)}` : s.mean.toFixed(digits));
  const kTokens = (s: Stat, n: number) => (n > 1 ? `${(s.mean / 1000).toFixed(0)}k±${(s.sd / 1000).toFixed(0)}k` : `${(s.mean / 1000).toFixed(0)}k`);
  const priced = names.some((v) => r.variants[v]!.usd !== undefined);
  // Virtual time: each run's own hours (the sweep's are on the last lines), mean ± sd per variant.
  const hours = (x: VariantResult) => x.perSeed.filter((p) => p.virtualSeconds !== undefined).map((p) => p.virtualSeconds! / 3600);
  const timed = names.some((v) => hours(r.variants[v]!).length > 0);
  const w = Math.max(8, ...names.map((n) => n.length));
  // A niche's column is as wide as its name: a name is never cut.
  const nw = niches.map((n) => Math.max(13, n.length));
  const head = ['variant'.padEnd(w), 'accuracy'.padStart(13), ...niches.map((n, i) => n.padStart(nw[i]!)), 'stable'.padStart(11),
    'tokens/run'.padStart(13), ...(priced ? ['USD/run'.padStart(15)] : []), ...(timed ? ['virtual h/run'.padStart(13)] : [])];
  const rows = names.map((v) => {
    const x = r.variants[v]!;
    const failed = x.failedSeeds ?? [];
    const notRun = x.notRunSeeds ?? [];
    const n = r.seeds - failed.length - notRun.length;
    if (n === 0) return [v.padEnd(w), (failed.length ? 'FAILED' : 'NOT RUN').padStart(13), failed.length ? `(all ${r.seeds} seeds failed)` : '(the sweep\'s budget was spent before it started)'].join(' ');
    return [v.padEnd(w), cell(x.accuracy, n).padStart(13), ...niches.map((ni, i) => cell(x.perNiche[ni] ?? { mean: 0, sd: 0 }, n).padStart(nw[i]!)),
      cell(x.stableSpecialists, n, 1).padStart(11), kTokens(x.tokens, n).padStart(13), ...(priced ? [(x.usd ? cell(x.usd, n, 4) : '–').padStart(15)] : []),
      ...(timed ? [(hours(x).length ? cell(stat(hours(x)), hours(x).length, 2) : '–').padStart(13)] : []),
      ...(failed.length ? [`(failed seeds: ${failed.join(', ')})`] : []), ...(notRun.length ? [`(not run, budget spent: seeds ${notRun.join(', ')})`] : [])].join(' ');
  });
  const failures = (r.failed ?? []).map((f) => `failed: ${f.variant} seed ${f.seed} after ${f.attempts} attempt${f.attempts === 1 ? '' : 's'}: ${f.error}`);
  const x = r.execution;
  const how = [
    ...(x?.virtual ? [`virtual time on one ${x.virtual.profile} server: ${(x.virtual.virtualSeconds / 3600).toFixed(2)} h for the whole sweep, ${x.virtual.tokensPerSecond.toFixed(0)} output tokens/s, utilization ${x.virtual.utilization === null ? '–' : `${(100 * x.virtual.utilization).toFixed(1)} %`}`] : []),
    ...(x?.priorities ? [`priorities: ${x.priorities} (the run with the longest predicted remaining time is served first)`] : []),
    ...(x?.speculativeOff ? ['speculative completion was off in every run (the runs shared one server)'] : []),
    ...(r.notRun?.length ? [`not run: ${r.notRun.length} runs, the sweep's budget was spent first (${x?.budgetStop ? `${x.budgetStop.limit} ${Math.round(x.budgetStop.spent)} of ${x.budgetStop.budget}` : 'budget'})`] : []),
  ];
  return [`ablation of ${r.scenario} over ${r.seeds} seed${r.seeds === 1 ? '' : 's'} (${r.seedList.join(', ')})${r.seeds > 1 ? ': mean ± sd' : ''}`, head.join(' '), ...rows, ...failures, ...how,
    ...(r.deadline ? formatDeadline(r.deadline, r.deadline.solo, r.seeds) : []),
    ...(r.paired ? formatPairedTable(r.paired) : []),
    `runs and ablation.json: ${r.outDir}`].join('\n');
}
