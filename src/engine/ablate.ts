import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { customAlphabet } from 'nanoid';
import type { LanguageModel } from '../llm/model';
import { getPreset } from './presets';
import { continueRun } from './continue-run';
import { runScenario, type RunResult, type StopOptions } from './run-scenario';
import { parseScenario, type LoadedScenario } from './scenario';
import type { InFlight } from './scenario-schema';
import type { RunSummary } from './summary';

/** The file in an ablation's directory that says what it runs, so an interrupted one can resume. */
export const ABLATION_PLAN_FILE = 'ablation-plan.json';

/** What `ablation-plan.json` holds: enough to rebuild the plan and its run options on resume. */
interface AblationPlanFile {
  readonly schemaVersion: 1;
  readonly config: unknown;
  readonly scenarioDir: string;
  readonly variants: string[];
  readonly seeds: number;
  readonly tasks?: number;
  readonly inFlight?: InFlight;
  readonly parallel?: number;
}

const suffix = customAlphabet('0123456789abcdefghijklmnopqrstuvwxyz', 6);

/** The variants `ablate` runs when none are named: the full system, its ablations, and the baselines. */
export const DEFAULT_ABLATION_VARIANTS = [
  'evochamber', 'no-codream', 'no-lifecycle', 'no-team', 'no-leadlearn', 'no-population', 'symmetric-codream',
  'per-agent-memory', 'structure-only', 'individual', 'self-consistency', 'single-agent',
] as const;

/** Mean and sample standard deviation. */
export interface Stat {
  readonly mean: number;
  readonly sd: number;
}

/** One variant's results over the seeds. */
export interface VariantResult {
  readonly accuracy: Stat;
  readonly perNiche: Record<string, Stat>;
  readonly stableSpecialists: Stat;
  /** Run directories, one per seed that finished, in seed order. */
  readonly runs: string[];
  /** Queued ablations: the host each of `runs` lives on (same order). */
  readonly hosts?: string[];
  /** Seeds whose run failed after its retries; left out of the figures above. */
  readonly failedSeeds?: number[];
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
}

/** Options of an ablation. */
export interface AblationOptions extends StopOptions {
  readonly variants?: readonly string[];
  /** Number of seeds, counted up from the scenario's seed. */
  readonly seeds?: number;
  readonly tasks?: number;
  readonly inFlight?: InFlight;
  /** Where the runs and ablation.json go (default runs/ablate-<scenario>-<id>). */
  readonly outDir?: string;
  /** Runs at once. In-process simulated runs share one CPU thread, so this mostly helps HTTP backends. */
  readonly parallel?: number;
  readonly model?: () => LanguageModel;
  readonly onRunDone?: (variant: string, seed: number, summary: RunSummary) => void;
}

/** Mean and sample sd (0 for one value). */
export function stat(xs: readonly number[]): Stat {
  const n = xs.length;
  const mean = n ? xs.reduce((a, b) => a + b, 0) / n : 0;
  const sd = n > 1 ? Math.sqrt(xs.reduce((a, x) => a + (x - mean) ** 2, 0) / (n - 1)) : 0;
  const r = (x: number) => Math.round(x * 1e4) / 1e4;
  return { mean: r(mean), sd: r(sd) };
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

/** The key of one (variant, seed) run in the maps `aggregateAblation` reads. */
export function runKey(variant: string, seed: number): string {
  return `${variant}/${seed}`;
}

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
  extra: { readonly failed?: readonly FailedRun[]; readonly hosts?: ReadonlyMap<string, string> } = {},
): AblationResult {
  const failed = extra.failed ?? [];
  const out: Record<string, VariantResult> = {};
  for (const variant of plan.variants) {
    const failedSeeds = plan.seedList.filter((s) => failed.some((f) => f.variant === variant && f.seed === s));
    const seeds = plan.seedList.filter((s) => !failedSeeds.includes(s));
    const runs = seeds.map((s) => {
      const r = results.get(runKey(variant, s));
      if (!r) throw new Error(`ablation: no result for ${variant} seed ${s}`);
      return r;
    });
    const niches = [...new Set(runs.flatMap((r) => Object.keys(r.perNiche)))];
    out[variant] = {
      accuracy: stat(runs.map((r) => r.accuracy)),
      perNiche: Object.fromEntries(niches.map((ni) => [ni, stat(runs.map((r) => r.perNiche[ni] ?? 0))])),
      stableSpecialists: stat(runs.map((r) => r.stableSpecialists ?? 0)),
      runs: runs.map((r) => r.runDir),
      ...(extra.hosts ? { hosts: seeds.map((s) => extra.hosts!.get(runKey(variant, s)) ?? '') } : {}),
      ...(failedSeeds.length ? { failedSeeds } : {}),
    };
  }
  return {
    variants: out, seeds: plan.seedList.length, scenario: plan.scenario, seedList: [...plan.seedList], outDir: plan.outDir,
    ...(failed.length ? { failed: [...failed] } : {}),
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

/**
 * Like runAblation, but an interrupted ablation (a stop request) gives a null result instead of
 * throwing; `resumeAblation` continues it. The plan is written first, so a killed one resumes too.
 */
export async function runAblationResumable(loaded: LoadedScenario, opts: AblationOptions = {}): Promise<{ result: AblationResult | null; outDir: string }> {
  const plan = planAblation(loaded, opts);
  const { outDir } = plan;
  if (existsSync(path.join(outDir, ABLATION_PLAN_FILE))) {
    throw new Error(`${outDir} already holds an ablation: continue it with "evochamber resume ${outDir}", or pick a new --out`);
  }
  mkdirSync(outDir, { recursive: true });
  const file: AblationPlanFile = {
    schemaVersion: 1, config: loaded.scenario, scenarioDir: loaded.dir, variants: [...plan.variants], seeds: plan.seedList.length,
    ...(opts.tasks !== undefined ? { tasks: opts.tasks } : {}), ...(opts.inFlight !== undefined ? { inFlight: opts.inFlight } : {}),
    ...(opts.parallel !== undefined ? { parallel: opts.parallel } : {}),
  };
  writeFileSync(path.join(outDir, ABLATION_PLAN_FILE), `${JSON.stringify(file, null, 2)}\n`);
  return { result: await executeAblation(loaded, plan, opts, false), outDir };
}

/**
 * Continue an interrupted ablation from its directory: finished runs are read back, interrupted
 * or crashed ones resumed, missing ones run; then ablation.json is written. Null when stopped again.
 */
export async function resumeAblation(dir: string, opts: Omit<AblationOptions, 'variants' | 'seeds' | 'tasks' | 'inFlight' | 'outDir'> = {}): Promise<AblationResult | null> {
  const outDir = path.resolve(dir);
  const file = JSON.parse(readFileSync(path.join(outDir, ABLATION_PLAN_FILE), 'utf8')) as AblationPlanFile;
  if (file.schemaVersion !== 1) throw new Error(`${dir}/${ABLATION_PLAN_FILE}: schemaVersion ${String(file.schemaVersion)} is not supported`);
  const loaded = parseScenario(file.config, path.join(outDir, ABLATION_PLAN_FILE), file.scenarioDir);
  const plan = planAblation(loaded, { variants: file.variants, seeds: file.seeds, outDir });
  return executeAblation(loaded, plan, { tasks: file.tasks, inFlight: file.inFlight, parallel: file.parallel, ...opts }, true);
}

async function executeAblation(loaded: LoadedScenario, plan: AblationPlan, opts: AblationOptions, resume: boolean): Promise<AblationResult | null> {
  const jobs = plan.variants.flatMap((variant) => plan.seedList.map((seed) => ({ variant, seed })));
  const results = new Map<string, RunSummary>();
  let next = 0;
  let interrupted = false;
  const stopOpts: StopOptions = { ...(opts.stop ? { stop: opts.stop } : {}), ...(opts.graceMs !== undefined ? { graceMs: opts.graceMs } : {}), ...(opts.onAbandonable ? { onAbandonable: opts.onAbandonable } : {}) };
  const runOne = (variant: string, seed: number): Promise<RunResult> => {
    // No per-run HTML reports (no afterRun): `evochamber report <ablation dir>` draws the variants side by side.
    const runOpts = {
      variant, seed, tasks: opts.tasks, inFlight: opts.inFlight, outDir: path.join(plan.outDir, `${variant}-s${seed}`),
      ...(opts.model ? { model: opts.model() } : {}), ...stopOpts,
    };
    // Resuming: finished runs are read back, interrupted or crashed ones resumed, missing ones run.
    return resume ? continueRun(loaded, runOpts) : runScenario(loaded, runOpts);
  };
  const worker = async () => {
    while (next < jobs.length && !interrupted && !opts.stop?.aborted) {
      const { variant, seed } = jobs[next++]!;
      const r = await runOne(variant, seed);
      if (r.interrupted) { interrupted = true; return; }
      results.set(runKey(variant, seed), r.summary);
      opts.onRunDone?.(variant, seed, r.summary);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(opts.parallel ?? 1, jobs.length)) }, worker));
  if (interrupted || results.size < jobs.length) return null;
  const result = aggregateAblation(plan, results);
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
  const cell = (s: Stat) => `${s.mean.toFixed(3)}±${s.sd.toFixed(3)}`;
  const w = Math.max(8, ...names.map((n) => n.length));
  const head = ['variant'.padEnd(w), 'accuracy'.padStart(13), ...niches.map((n) => n.slice(0, 13).padStart(13)), 'stable'.padStart(11)];
  const rows = names.map((v) => {
    const x = r.variants[v]!;
    const failed = x.failedSeeds ?? [];
    if (failed.length === r.seeds) return [v.padEnd(w), 'FAILED'.padStart(13), `(all ${r.seeds} seeds failed)`].join(' ');
    return [v.padEnd(w), cell(x.accuracy).padStart(13), ...niches.map((n) => cell(x.perNiche[n] ?? { mean: 0, sd: 0 }).padStart(13)),
      `${x.stableSpecialists.mean.toFixed(1)}±${x.stableSpecialists.sd.toFixed(1)}`.padStart(11),
      ...(failed.length ? [`(failed seeds: ${failed.join(', ')})`] : [])].join(' ');
  });
  const failures = (r.failed ?? []).map((f) => `failed: ${f.variant} seed ${f.seed} after ${f.attempts} attempt${f.attempts === 1 ? '' : 's'}: ${f.error}`);
  return [`ablation of ${r.scenario} over ${r.seeds} seeds (${r.seedList.join(', ')}): mean ± sd`, head.join(' '), ...rows, ...failures,
    `runs and ablation.json: ${r.outDir}`].join('\n');
}
