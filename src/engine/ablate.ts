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

/**
 * Run each variant over the same seeds and aggregate accuracy (overall and per niche) and stable
 * specialists as mean ± sd. Presets are validated before anything runs. Writes ablation.json.
 */
export async function runAblation(loaded: LoadedScenario, opts: AblationOptions = {}): Promise<AblationResult> {
  const variants = [...(opts.variants ?? DEFAULT_ABLATION_VARIANTS)];
  for (const v of variants) getPreset(v);
  const n = opts.seeds ?? 3;
  const seedList = Array.from({ length: n }, (_, i) => loaded.scenario.seed + i);
  const outDir = path.resolve(opts.outDir ?? path.join('runs', `ablate-${loaded.scenario.name}-${suffix()}`));
  mkdirSync(outDir, { recursive: true });
  const jobs = variants.flatMap((variant) => seedList.map((seed) => ({ variant, seed })));
  const results = new Map<string, RunSummary>();
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const { variant, seed } = jobs[next++]!;
      // Per-run HTML reports are skipped here: `evochamber report <ablation dir>` draws the variants side by side.
      const { summary } = await runScenario(loaded, {
        variant, seed, tasks: opts.tasks, inFlight: opts.inFlight, outDir: path.join(outDir, `${variant}-s${seed}`), report: false,
        ...(opts.model ? { model: opts.model() } : {}),
      });
      results.set(`${variant}/${seed}`, summary);
      opts.onRunDone?.(variant, seed, summary);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(opts.parallel ?? 1, jobs.length)) }, worker));

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
