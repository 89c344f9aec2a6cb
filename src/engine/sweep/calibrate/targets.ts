import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { readRunEventsSync } from '../../../store/events';
import { z } from 'zod';
import { ABLATION_PLAN_FILE } from '../ablate';
import { PRESETS } from '../../scenario/presets';
import { loadScenario, parseScenario, resolveScenario, type LoadedScenario } from '../../scenario/scenario';
import { canonical } from './canonical';
import { groupedNiches, nichesCovered, targetNames } from '../../../tasks/niche-groups';
import { loadBuiltinNicheSpecs } from '../../../tasks/niche-registry';

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
  /** The stream length (tasks a run) it was measured at: an evaluation at another length is refused. */
  tasks: z.number().int().positive().optional(),
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
  /** The stream niches it pools: one, a group, or every niche for `all`. */
  readonly niches: readonly string[];
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

/** The ids a group name lists (`aime-2022+aime-2023`): one id for a plain niche. */
export function groupNiches(niche: string): string[] {
  return niche.split('+').filter(Boolean);
}

/**
 * The stream niches a target's `niche` pools (docs/calibration.md, "Targets"): every niche for
 * `all`, a niche id, a group of niches (a niche file's `group`: `aime` for the four AIME years;
 * src/tasks/niche-groups.ts), or ids joined by `+`. Undefined when it names nothing in the stream.
 */
export function resolveNiches(niche: string, loaded: LoadedScenario): string[] | undefined {
  const specs = loadBuiltinNicheSpecs();
  const grouped = groupedNiches(streamNiches(loaded), (id) => specs.get(id));
  const ids = groupNiches(niche);
  const covered = ids.length > 1 ? (ids.every((id) => grouped.some((n) => n.id === id)) ? ids : []) : nichesCovered(niche, grouped);
  return covered.length ? covered : undefined;
}

/** Every niche name a target may use on a scenario's stream: `all`, each niche id, each group. */
export function targetNiches(loaded: LoadedScenario): string[] {
  const specs = loadBuiltinNicheSpecs();
  return targetNames(groupedNiches(streamNiches(loaded), (id) => specs.get(id)));
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
    const niches = resolveNiches(row.niche, loaded);
    if (!niches) {
      throw new TargetsError(file, `${at}.niche`, `niche "${row.niche}" is not in scenario ${loaded.scenario.name}'s stream (names: ${targetNiches(loaded).join(', ')}, or ids joined by +)`);
    }
    if (row.n === undefined && row.stderr === undefined) throw new TargetsError(file, at, 'give n (graded tasks) or stderr');
    const se = row.stderr ?? binomialSe(row.accuracy, row.n!);
    return { ...row, index, se, loaded, niches };
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

/** Tallies of one niche, a group of them (`a+b`), or `all`, over a map of them. */
export function outcomeOf(outcomes: ReadonlyMap<string, NicheOutcome>, niche: string | readonly string[]): NicheOutcome {
  const t = { n: 0, sum: 0, sumSq: 0 };
  const ids = typeof niche !== 'string' ? niche : niche === 'all' ? [...outcomes.keys()] : groupNiches(niche);
  for (const id of ids) {
    const o = outcomes.get(id);
    if (o) { t.n += o.n; t.sum += o.sum; t.sumSq += o.sumSq; }
  }
  return t;
}

/**
 * Targets measured at another stream length than their evaluation runs: the first, as a one-line
 * error (a short stream learns less, so a full-stream figure is out of its reach and a fit to it
 * reads that as a parameter). `tasks` is the evaluation's `--tasks`, when given.
 */
export function checkStreamLengths(targets: readonly Target[], file: string, tasks: number | undefined): void {
  for (const t of targets) {
    const evaluated = tasks ?? t.loaded.scenario.stream.tasks;
    if (t.tasks !== undefined && evaluated !== undefined && t.tasks !== evaluated) {
      throw new TargetsError(file, `targets[${t.index}].tasks`, `${t.variant} on ${t.niche} was measured on ${t.tasks}-task streams, the evaluation runs ${evaluated} (${tasks !== undefined ? '--tasks' : `scenario ${t.loaded.scenario.name}`}): give --tasks ${t.tasks}, or measure at ${evaluated}`);
    }
  }
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
 * The baseline presets (docs/calibration.md, "Targets"): what `--from-runs` fits on unless `--variants` names others.
 * The method and its ablations are what a world predicts; a fit that saw them would predict nothing.
 */
export const BASELINE_VARIANTS: readonly string[] = ['single-agent', 'self-consistency', 'per-agent-memory', 'shared-memory', 'structure-only'];

/** What `--from-runs` built: the targets, the scenarios their runs ran (to write beside them), and the runs it left out. */
export interface RunTargets {
  readonly targets: Target[];
  /** File name (relative to the targets file) → the scenario as its runs ran it, on the simulator. */
  readonly scenarios: ReadonlyMap<string, unknown>;
  /** Runs of variants not fitted on, by variant. */
  readonly leftOut: ReadonlyMap<string, number>;
  /** The seeds the taken runs ran (a calibration at the same seeds would replay their luck). */
  readonly seeds: ReadonlySet<number>;
}

interface RunFile {
  status?: string;
  config?: Record<string, unknown> & { name?: string; variant?: string; seed?: number; stream?: { tasks?: number } };
  summary?: { variant?: string };
  scenarioDir?: string;
}

/**
 * Targets from run directories (or ablation directories: each of their runs): one row per
 * scenario, variant and niche, its accuracy and count pooled over those runs, its standard error
 * from the rewards' spread, its `scenario` the stream its runs ran (written beside the targets, on
 * the simulator) and its `tasks` their stream length. Only baseline variants are taken unless
 * `variants` names the ones to take; runs of several streams give one set of targets, fitted
 * together. The twin workflow's first half (docs/calibration.md).
 */
export function targetsFromRuns(dirs: readonly string[], opts: { readonly variants?: readonly string[]; readonly scenarioPrefix: string; readonly scenarioDir: string }): RunTargets {
  const take = new Set(opts.variants ?? BASELINE_VARIANTS);
  const pooled = new Map<string, { scenario: string; tasks: number | undefined; variant: string; niche: string; o: NicheOutcome; runs: string[] }>();
  const scenarios = new Map<string, { config: unknown; content: string }>();
  const leftOut = new Map<string, number>();
  const seeds = new Set<number>();
  for (const given of dirs) {
    const runDirs = runDirsOf(given);
    if (runDirs.length === 0) throw new TargetsError(given, '', 'no run in this directory');
    for (const dir of runDirs) {
      const file = path.join(dir, 'run.json');
      if (!existsSync(file)) throw new TargetsError(dir, '', 'not a run directory (no run.json)');
      const run = JSON.parse(readFileSync(file, 'utf8')) as RunFile;
      const variant = run.summary?.variant ?? run.config?.variant;
      if (!variant) throw new TargetsError(file, 'summary.variant', 'the run names no variant');
      if (!take.has(variant)) { leftOut.set(variant, (leftOut.get(variant) ?? 0) + 1); continue; }
      if (run.status !== 'finished') throw new TargetsError(file, 'status', `the run is ${run.status ?? 'unknown'}, not finished (resume it first)`);
      if (!run.config) throw new TargetsError(file, 'config', 'the run records no scenario');
      const scenario = scenarioFileFor(scenarios, run.config, opts.scenarioPrefix);
      if (typeof run.config.seed === 'number') seeds.add(run.config.seed);
      for (const [niche, o] of nicheOutcomes(dir)) {
        const key = `${scenario}\u0000${variant}\u0000${niche}`;
        const p = pooled.get(key) ?? { scenario, tasks: run.config.stream?.tasks, variant, niche, o: { n: 0, sum: 0, sumSq: 0 }, runs: [] };
        p.o.n += o.n; p.o.sum += o.sum; p.o.sumSq += o.sumSq;
        p.runs.push(path.basename(dir));
        pooled.set(key, p);
      }
    }
  }
  if (pooled.size === 0) {
    throw new TargetsError(dirs.join(' '), '', `no run of a variant to fit on (found: ${[...leftOut.keys()].join(', ') || 'none'}; baselines: ${BASELINE_VARIANTS.join(', ')}; name others with --variants)`);
  }
  const loaded = new Map([...scenarios].map(([f, s]) => [f, parseScenario(s.config, path.join(opts.scenarioDir, f), opts.scenarioDir)]));
  const targets = [...pooled.values()].map((p, index): Target => {
    const row: TargetRow = {
      variant: p.variant, niche: p.niche, accuracy: round4(p.o.sum / p.o.n), n: p.o.n, stderr: round4(Math.max(1e-4, outcomeSe(p.o))),
      source: `runs ${p.runs.join(', ')}`, scenario: p.scenario, ...(p.tasks !== undefined ? { tasks: p.tasks } : {}),
    };
    return { ...row, index, se: row.stderr!, loaded: loaded.get(p.scenario)!, niches: [p.niche] };
  });
  return { targets, scenarios: new Map([...scenarios].map(([f, s]) => [f, s.config])), leftOut, seeds };
}

/** The file a run's scenario is kept in: one per distinct scenario (name, then content), on the simulator. */
function scenarioFileFor(scenarios: Map<string, { config: unknown; content: string }>, config: Record<string, unknown> & { name?: string }, prefix: string): string {
  // The evaluation runs the simulator whatever served the runs (a vLLM, serve-sim over HTTP): the world stands in for it.
  const { variant: _v, ...rest } = config;
  const simConfig = { ...rest, model: { backend: 'sim' } };
  const content = JSON.stringify(canonical({ ...simConfig, name: null, description: null, seed: null }));
  for (const [f, s] of scenarios) if (s.content === content) return f;
  const base = `${prefix}${String(config.name ?? 'scenario').replace(/[^A-Za-z0-9._-]/g, '_')}`;
  let f = `${base}.json`;
  for (let i = 2; scenarios.has(f); i++) f = `${base}-${i}.json`;
  scenarios.set(f, { config: simConfig, content });
  return f;
}

const round4 = (x: number) => Math.round(x * 1e4) / 1e4;

/** A targets file's content for targets (what `--from-runs` built, written beside the world). */
export function targetsFileOf(targets: readonly Target[], description: string): z.infer<typeof targetsFileSchema> {
  return {
    schemaVersion: TARGETS_SCHEMA_VERSION, description,
    // Written as JSON, which leaves out a field that is undefined: the row keeps only what it has.
    targets: targets.map(({ variant, niche, accuracy, n, stderr, source, scenario, tasks }) => ({ variant, niche, accuracy, n, stderr, source, scenario, tasks })),
  };
}
