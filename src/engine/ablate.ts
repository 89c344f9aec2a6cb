import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { customAlphabet } from 'nanoid';
import type { LanguageModel } from '../llm/model';
import { getPreset } from './presets';
import { RunStore } from '../store/run-store';
import { resumeRun, runScenario, type RunResult, type StopOptions } from './run-scenario';
import { parseScenario, type LoadedScenario } from './scenario';
import type { RunSummary } from './summary';

/** The file in an ablation's directory that says what it runs, so an interrupted one can resume. */
export const ABLATION_PLAN_FILE = 'ablation-plan.json';

/** What `ablation-plan.json` holds. */
interface AblationPlan {
  readonly schemaVersion: 1;
  readonly config: unknown;
  readonly scenarioDir: string;
  readonly variants: string[];
  readonly seeds: number;
  readonly tasks?: number;
  readonly inFlight?: number;
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
  /** Run directories, one per seed, in seed order. */
  readonly runs: string[];
}

/** What `ablate` writes to `ablation.json` and prints with `--json`. */
export interface AblationResult {
  readonly variants: Record<string, VariantResult>;
  readonly seeds: number;
  readonly scenario: string;
  readonly seedList: number[];
  readonly outDir: string;
}

/** Options of an ablation. */
export interface AblationOptions extends StopOptions {
  readonly variants?: readonly string[];
  /** Number of seeds, counted up from the scenario's seed. */
  readonly seeds?: number;
  readonly tasks?: number;
  readonly inFlight?: number;
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
  const variants = [...(opts.variants ?? DEFAULT_ABLATION_VARIANTS)];
  for (const v of variants) getPreset(v);
  const outDir = path.resolve(opts.outDir ?? path.join('runs', `ablate-${loaded.scenario.name}-${suffix()}`));
  if (existsSync(path.join(outDir, ABLATION_PLAN_FILE))) {
    throw new Error(`${outDir} already holds an ablation: continue it with "evochamber resume ${outDir}", or pick a new --out`);
  }
  mkdirSync(outDir, { recursive: true });
  const plan: AblationPlan = {
    schemaVersion: 1, config: loaded.scenario, scenarioDir: loaded.dir, variants, seeds: opts.seeds ?? 3,
    ...(opts.tasks !== undefined ? { tasks: opts.tasks } : {}), ...(opts.inFlight !== undefined ? { inFlight: opts.inFlight } : {}),
    ...(opts.parallel !== undefined ? { parallel: opts.parallel } : {}),
  };
  writeFileSync(path.join(outDir, ABLATION_PLAN_FILE), `${JSON.stringify(plan, null, 2)}\n`);
  return { result: await executeAblation(loaded, outDir, plan, opts, false), outDir };
}

/**
 * Continue an interrupted ablation from its directory: finished runs are read back, interrupted
 * or crashed ones resumed, missing ones run; then ablation.json is written. Null when stopped again.
 */
export async function resumeAblation(dir: string, opts: Omit<AblationOptions, 'variants' | 'seeds' | 'tasks' | 'inFlight' | 'outDir'> = {}): Promise<AblationResult | null> {
  const outDir = path.resolve(dir);
  const plan = JSON.parse(readFileSync(path.join(outDir, ABLATION_PLAN_FILE), 'utf8')) as AblationPlan;
  if (plan.schemaVersion !== 1) throw new Error(`${dir}/${ABLATION_PLAN_FILE}: schemaVersion ${String(plan.schemaVersion)} is not supported`);
  const loaded = parseScenario(plan.config, path.join(outDir, ABLATION_PLAN_FILE), plan.scenarioDir);
  return executeAblation(loaded, outDir, plan, { parallel: plan.parallel, ...opts }, true);
}

async function executeAblation(loaded: LoadedScenario, outDir: string, plan: AblationPlan, opts: AblationOptions, resume: boolean): Promise<AblationResult | null> {
  const { variants } = plan;
  const n = plan.seeds;
  const seedList = Array.from({ length: n }, (_, i) => loaded.scenario.seed + i);
  const jobs = variants.flatMap((variant) => seedList.map((seed) => ({ variant, seed })));
  const results = new Map<string, RunSummary>();
  let next = 0;
  let interrupted = false;
  const stopOpts: StopOptions = { ...(opts.stop ? { stop: opts.stop } : {}), ...(opts.graceMs !== undefined ? { graceMs: opts.graceMs } : {}), ...(opts.onAbandonable ? { onAbandonable: opts.onAbandonable } : {}) };
  const runOne = async (variant: string, seed: number): Promise<RunResult> => {
    const runDir = path.join(outDir, `${variant}-s${seed}`);
    const model = opts.model ? { model: opts.model() } : {};
    if (resume && existsSync(path.join(runDir, 'run.json'))) {
      const store = await RunStore.open(runDir);
      if (store.data.status === 'finished') return { summary: store.data.summary as unknown as RunSummary, runDir };
      return resumeRun(runDir, { report: false, ...model, ...stopOpts });
    }
    // Per-run HTML reports are skipped here: `evochamber report <ablation dir>` draws the variants side by side.
    return runScenario(loaded, {
      variant, seed, tasks: plan.tasks, inFlight: plan.inFlight, outDir: runDir, report: false, ...model, ...stopOpts,
    });
  };
  const worker = async () => {
    while (next < jobs.length && !interrupted && !opts.stop?.aborted) {
      const { variant, seed } = jobs[next++]!;
      const r = await runOne(variant, seed);
      if (r.interrupted) { interrupted = true; return; }
      results.set(`${variant}/${seed}`, r.summary);
      opts.onRunDone?.(variant, seed, r.summary);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(opts.parallel ?? 1, jobs.length)) }, worker));
  if (interrupted || results.size < jobs.length) return null;

  const out: Record<string, VariantResult> = {};
  for (const variant of variants) {
    const runs = seedList.map((s) => results.get(`${variant}/${s}`)!);
    const niches = [...new Set(runs.flatMap((r) => Object.keys(r.perNiche)))];
    out[variant] = {
      accuracy: stat(runs.map((r) => r.accuracy)),
      perNiche: Object.fromEntries(niches.map((ni) => [ni, stat(runs.map((r) => r.perNiche[ni] ?? 0))])),
      stableSpecialists: stat(runs.map((r) => r.stableSpecialists ?? 0)),
      runs: runs.map((r) => r.runDir),
    };
  }
  const result: AblationResult = { variants: out, seeds: n, scenario: loaded.scenario.name, seedList, outDir };
  writeFileSync(path.join(outDir, 'ablation.json'), `${JSON.stringify(result, null, 2)}\n`);
  return result;
}

/** The ablation as a plain-text table: mean ± sd accuracy overall and per niche, stable specialists. */
export function formatAblationTable(r: AblationResult): string {
  const names = Object.keys(r.variants);
  const niches = [...new Set(names.flatMap((v) => Object.keys(r.variants[v]!.perNiche)))];
  const cell = (s: Stat) => `${s.mean.toFixed(3)}±${s.sd.toFixed(3)}`;
  const w = Math.max(8, ...names.map((n) => n.length));
  const head = ['variant'.padEnd(w), 'accuracy'.padStart(13), ...niches.map((n) => n.slice(0, 13).padStart(13)), 'stable'.padStart(11)];
  const rows = names.map((v) => {
    const x = r.variants[v]!;
    return [v.padEnd(w), cell(x.accuracy).padStart(13), ...niches.map((n) => cell(x.perNiche[n] ?? { mean: 0, sd: 0 }).padStart(13)),
      `${x.stableSpecialists.mean.toFixed(1)}±${x.stableSpecialists.sd.toFixed(1)}`.padStart(11)].join(' ');
  });
  return [`ablation of ${r.scenario} over ${r.seeds} seeds (${r.seedList.join(', ')}): mean ± sd`, head.join(' '), ...rows, `runs and ablation.json: ${r.outDir}`].join('\n');
}
