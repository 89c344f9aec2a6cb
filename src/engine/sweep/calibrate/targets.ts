import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { readRunEventsSync } from '../../../store/events';
import { z } from 'zod';
import { ABLATION_PLAN_FILE } from '../ablate';
import { PRESETS } from '../../scenario/presets';
import { loadScenario, resolveScenario, type LoadedScenario } from '../../scenario/scenario';

/** Version of the targets file format (docs/calibration.md, "Targets"). */
export const TARGETS_SCHEMA_VERSION = 1;

/** One measured accuracy the world is fitted to. */
export const targetRowSchema = z.strictObject({
  /** The preset that was measured (`single-agent`, `self-consistency`, …). */
  variant: z.string().min(1),
  /** A niche id of the scenario's stream, or `all` for the whole stream. */
  niche: z.string().min(1),
  /** Mean reward (exact match, pass@1 or F1), 0–1. */
  accuracy: z.number().min(0).max(1),
  /** Graded tasks behind it (its standard error is then binomial), or … */
  n: z.number().int().positive().optional(),
  /** … its standard error directly. */
  stderr: z.number().positive().optional(),
  /** Where the figure comes from (a paper's table, a run directory). */
  source: z.string().min(1),
  /** The scenario it was measured on, relative to the targets file or a bundled name (default: the one calibrated). */
  scenario: z.string().min(1).optional(),
});

/** A targets row as written. */
export type TargetRow = z.infer<typeof targetRowSchema>;

/** A targets file: rows of measured accuracies. */
export const targetsFileSchema = z.strictObject({
  schemaVersion: z.literal(TARGETS_SCHEMA_VERSION),
  description: z.string().optional(),
  targets: z.array(targetRowSchema).min(1),
});

/** A target ready to fit: its scenario loaded, its standard error known. */
export interface Target extends TargetRow {
  /** Index in the file, for messages (`targets[3]`). */
  readonly index: number;
  /** Standard error of `accuracy` (given, or binomial from `n`). */
  readonly se: number;
  readonly loaded: LoadedScenario;
}

/** A targets file (or --from-runs) that cannot be used: one line naming the file and the row. */
export class TargetsError extends Error {
  constructor(readonly file: string, readonly field: string, detail: string) {
    super(`${file}: ${field ? `${field}: ` : ''}${detail}`);
    this.name = 'TargetsError';
  }
}

/**
 * The standard error of an accuracy over n graded tasks: binomial, with the accuracy pulled half a
 * task towards 1/2 so that 0 and 1 do not claim certainty.
 */
export function binomialSe(accuracy: number, n: number): number {
  const p = (accuracy * n + 0.5) / (n + 1);
  return Math.sqrt((p * (1 - p)) / n);
}

/** Every niche id a scenario's stream names. */
export function streamNiches(loaded: LoadedScenario): string[] {
  return loaded.scenario.stream.niches.map((n) => n.id);
}

/**
 * Check rows against their scenarios (the variant is a preset, the niche is in the stream, n or
 * stderr given) and load each row's scenario once. `main` is the scenario being calibrated.
 */
export function resolveTargets(rows: readonly TargetRow[], file: string, main: LoadedScenario): Target[] {
  const scenarios = new Map<string, LoadedScenario>();
  const dir = path.dirname(path.resolve(file));
  return rows.map((row, index) => {
    const at = `targets[${index}]`;
    if (!Object.hasOwn(PRESETS, row.variant)) throw new TargetsError(file, `${at}.variant`, `unknown variant "${row.variant}" (presets: ${Object.keys(PRESETS).join(', ')})`);
    let loaded = main;
    if (row.scenario !== undefined) {
      const ref = existsSync(path.resolve(dir, row.scenario)) ? path.resolve(dir, row.scenario) : row.scenario;
      const sameAsMain = path.resolve(resolveScenario(ref)) === path.resolve(main.file);
      loaded = sameAsMain ? main : scenarios.get(ref) ?? (() => {
        try {
          return loadScenario(ref);
        } catch (err) {
          throw new TargetsError(file, `${at}.scenario`, (err as Error).message);
        }
      })();
      scenarios.set(ref, loaded);
    }
    const niches = streamNiches(loaded);
    if (row.niche !== 'all' && !niches.includes(row.niche)) {
      throw new TargetsError(file, `${at}.niche`, `niche "${row.niche}" is not in scenario ${loaded.scenario.name}'s stream (niches: ${niches.join(', ')}, or all)`);
    }
    if (row.n === undefined && row.stderr === undefined) throw new TargetsError(file, at, 'give n (graded tasks) or stderr');
    const se = row.stderr ?? binomialSe(row.accuracy, row.n!);
    return { ...row, index, se, loaded };
  });
}

/** Read and check a targets file (docs/calibration.md, "Targets"). */
export function loadTargets(file: string, main: LoadedScenario): Target[] {
  if (!existsSync(file)) throw new TargetsError(file, '', 'targets file not found');
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new TargetsError(file, '', `not valid JSON: ${(err as Error).message}`);
  }
  const parsed = targetsFileSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const p = [...issue.path, ...(issue.code === 'unrecognized_keys' ? [issue.keys[0]!] : [])];
    const field = p.reduce<string>((acc, k) => (typeof k === 'number' ? `${acc}[${k}]` : acc ? `${acc}.${String(k)}` : String(k)), '');
    throw new TargetsError(file, field, issue.code === 'unrecognized_keys' ? 'unknown field' : issue.message);
  }
  return resolveTargets(parsed.data.targets, file, main);
}

/** Reward tallies of one niche: graded tasks, reward sum, sum of squares. */
export interface NicheOutcome {
  n: number;
  sum: number;
  sumSq: number;
}

/** Per-niche reward tallies of a run directory, from its event log's `task.graded` events. */
export function nicheOutcomes(runDir: string): Map<string, NicheOutcome> {
  const out = new Map<string, NicheOutcome>();
  for (const e of readRunEventsSync(runDir, { types: ['task.graded'] })) {
    if (typeof e.niche !== 'string' || typeof e.reward !== 'number') continue;
    const t = out.get(e.niche) ?? { n: 0, sum: 0, sumSq: 0 };
    t.n++;
    t.sum += e.reward;
    t.sumSq += e.reward * e.reward;
    out.set(e.niche, t);
  }
  return out;
}

/** Tallies of one niche (or `all`) over a map of them. */
export function outcomeOf(outcomes: ReadonlyMap<string, NicheOutcome>, niche: string): NicheOutcome {
  if (niche !== 'all') return outcomes.get(niche) ?? { n: 0, sum: 0, sumSq: 0 };
  const t = { n: 0, sum: 0, sumSq: 0 };
  for (const o of outcomes.values()) { t.n += o.n; t.sum += o.sum; t.sumSq += o.sumSq; }
  return t;
}

/** Standard error of a mean reward from its tallies (the reward's own spread: F1 is not binary), never below the binomial floor's half. */
export function outcomeSe(o: NicheOutcome): number {
  if (o.n === 0) return Infinity;
  const mean = o.sum / o.n;
  const variance = Math.max(0, o.sumSq / o.n - mean * mean);
  return Math.max(Math.sqrt(variance / o.n), binomialSe(mean, o.n) / 2);
}

function runDirsOf(dir: string): string[] {
  if (existsSync(path.join(dir, ABLATION_PLAN_FILE))) {
    return readdirSync(dir).map((d) => path.join(dir, d)).filter((d) => existsSync(path.join(d, 'run.json'))).sort();
  }
  return [dir];
}

/**
 * Targets from run directories (or ablation directories: each of their runs): one row per variant
 * and niche, its accuracy and count pooled over the runs of that variant, its standard error from
 * the rewards' spread. The twin workflow's first half (docs/calibration.md).
 */
export function targetsFromRuns(dirs: readonly string[], main: LoadedScenario): Target[] {
  const pooled = new Map<string, { variant: string; niche: string; o: NicheOutcome; runs: string[] }>();
  for (const given of dirs) {
    const runDirs = runDirsOf(given);
    if (runDirs.length === 0) throw new TargetsError(given, '', 'no run in this directory');
    for (const dir of runDirs) {
      const file = path.join(dir, 'run.json');
      if (!existsSync(file)) throw new TargetsError(dir, '', 'not a run directory (no run.json)');
      const run = JSON.parse(readFileSync(file, 'utf8')) as { status?: string; config?: { variant?: string }; summary?: { variant?: string } };
      const variant = run.summary?.variant ?? run.config?.variant;
      if (!variant) throw new TargetsError(file, 'summary.variant', 'the run names no variant');
      if (run.status !== 'finished') throw new TargetsError(file, 'status', `the run is ${run.status ?? 'unknown'}, not finished (resume it first)`);
      for (const [niche, o] of nicheOutcomes(dir)) {
        const key = `${variant}\u0000${niche}`;
        const p = pooled.get(key) ?? { variant, niche, o: { n: 0, sum: 0, sumSq: 0 }, runs: [] };
        p.o.n += o.n; p.o.sum += o.sum; p.o.sumSq += o.sumSq;
        p.runs.push(path.basename(dir));
        pooled.set(key, p);
      }
    }
  }
  const rows: TargetRow[] = [...pooled.values()].map((p) => ({
    variant: p.variant, niche: p.niche, accuracy: round4(p.o.sum / p.o.n), n: p.o.n, stderr: round4(Math.max(1e-4, outcomeSe(p.o))),
    source: `runs ${p.runs.join(', ')}`,
  }));
  return resolveTargets(rows, '--from-runs', main);
}

const round4 = (x: number) => Math.round(x * 1e4) / 1e4;

/** A targets file's content for targets (what `--from-runs` built, written beside the world). */
export function targetsFileOf(targets: readonly Target[], description: string): z.infer<typeof targetsFileSchema> {
  return {
    schemaVersion: TARGETS_SCHEMA_VERSION, description,
    targets: targets.map(({ variant, niche, accuracy, n, stderr, source, scenario }) => ({
      variant, niche, accuracy, ...(n !== undefined ? { n } : {}), ...(stderr !== undefined ? { stderr } : {}), source, ...(scenario !== undefined ? { scenario } : {}),
    })),
  };
}
