import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { customAlphabet } from 'nanoid';
import type { LanguageModel } from '../llm/model';
import { getPreset } from './presets';
import { runScenario } from './run-scenario';
import type { LoadedScenario } from './scenario';
import type { RunSummary } from './summary';

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
export interface AblationOptions {
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
  const plan = planAblation(loaded, opts);
  mkdirSync(plan.outDir, { recursive: true });
  const jobs = plan.variants.flatMap((variant) => plan.seedList.map((seed) => ({ variant, seed })));
  const results = new Map<string, RunSummary>();
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const { variant, seed } = jobs[next++]!;
      // Per-run HTML reports are skipped here: `evochamber report <ablation dir>` draws the variants side by side.
      const { summary } = await runScenario(loaded, {
        variant, seed, tasks: opts.tasks, inFlight: opts.inFlight, outDir: path.join(plan.outDir, `${variant}-s${seed}`), report: false,
        ...(opts.model ? { model: opts.model() } : {}),
      });
      results.set(runKey(variant, seed), summary);
      opts.onRunDone?.(variant, seed, summary);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(opts.parallel ?? 1, jobs.length)) }, worker));
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
