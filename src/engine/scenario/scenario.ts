import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { z } from 'zod';
import { getPreset, minimumPool } from './presets';
import { scenarioSchema, type Scenario, type ScenarioInput } from './scenario-schema';
import { modelPlugins } from './model-plugins';
import { knownKeys, nearestKey } from './scenario-keys';
import { DATASET_SPECS } from '../../tasks/datasets/formats';
import { loadBuiltinNicheSpecs } from '../../tasks/niche-registry';

/** A scenario that failed to load: the message names the file and the field. */
export class ScenarioError extends Error {
  constructor(readonly file: string, readonly field: string, detail: string) {
    super(`${file}: ${field ? `${field}: ` : ''}${detail}`);
    this.name = 'ScenarioError';
  }
}

/** A validated scenario plus where it came from (dataset paths resolve against `dir`). */
export interface LoadedScenario {
  readonly scenario: Scenario;
  readonly file: string;
  readonly dir: string;
}

function fieldPath(p: readonly PropertyKey[]): string {
  return p.reduce<string>((acc, k) => (typeof k === 'number' ? `${acc}[${k}]` : acc ? `${acc}.${String(k)}` : String(k)), '');
}

function firstIssue(file: string, error: z.ZodError): ScenarioError {
  // An unknown field first: a misspelt required one ("taks") also leaves "tasks" missing.
  const issue = error.issues.find((i) => i.code === 'unrecognized_keys') ?? error.issues[0]!;
  if (issue.code === 'unrecognized_keys') {
    const key = issue.keys[0]!;
    const known = knownKeys(scenarioSchema, issue.path);
    const near = nearestKey(key, known);
    const hint = near !== undefined ? ` (did you mean ${fieldPath([...issue.path, near])}?)` : known.length > 0 ? ` (fields here: ${known.join(', ')})` : '';
    return new ScenarioError(file, fieldPath([...issue.path, key]), `unknown field${hint}`);
  }
  return new ScenarioError(file, fieldPath(issue.path), issue.message);
}

/**
 * Validate a scenario object: schema, then references (variant, niche ids, dataset files).
 * `file` names the source in errors; `dir` is where relative dataset paths start.
 */
export function parseScenario(input: unknown, file = '<scenario>', dir = process.cwd()): LoadedScenario {
  const model = (input as { model?: { backend?: unknown; latency?: unknown } } | null)?.model;
  if (model && typeof model === 'object' && model.latency !== undefined && model.backend !== undefined && model.backend !== 'sim') {
    throw new ScenarioError(file, 'model.latency', 'virtual time runs only the in-process simulator (model.backend "sim"); an HTTP backend takes real time (for a sped-up server use serve-sim --time-scale)');
  }
  const parsed = scenarioSchema.safeParse(input);
  if (!parsed.success) throw firstIssue(file, parsed.error);
  let scenario = parsed.data;
  for (const plugin of modelPlugins()) {
    if (!plugin.resolve) continue;
    try {
      scenario = plugin.resolve(scenario, dir);
    } catch (err) {
      throw new ScenarioError(file, plugin.name, (err as Error).message);
    }
  }
  for (const plugin of modelPlugins()) {
    const issue = plugin.validate?.(scenario);
    if (issue) throw new ScenarioError(file, issue.field, issue.message);
  }
  let preset;
  try {
    preset = getPreset(scenario.variant);
  } catch (err) {
    throw new ScenarioError(file, 'variant', (err as Error).message);
  }
  if (preset.pool === 'scenario' && scenario.agents.count < minimumPool(preset)) {
    throw new ScenarioError(file, 'agents.count', `variant "${preset.name}" forms teams of ${minimumPool(preset)}; the pool has ${scenario.agents.count} agents`);
  }
  const builtin = loadBuiltinNicheSpecs();
  const seen = new Set<string>();
  scenario.stream.niches.forEach((n, i) => {
    const at = `stream.niches[${i}]`;
    if (seen.has(n.id)) throw new ScenarioError(file, `${at}.id`, `niche "${n.id}" listed twice`);
    seen.add(n.id);
    if (n.dataset) {
      const p = path.resolve(dir, n.dataset.path);
      if (!existsSync(p)) throw new ScenarioError(file, `${at}.dataset.path`, `dataset file not found: ${p}`);
      const { filters, spec: ds } = DATASET_SPECS[n.dataset.format];
      const key = Object.keys(n.dataset.filter ?? {}).find((k) => !(filters as readonly string[]).includes(k));
      if (key !== undefined) throw new ScenarioError(file, `${at}.dataset.filter.${key}`, `format "${n.dataset.format}" has no "${key}" filter (filters: ${filters.join(', ') || 'none'})`);
      const level = n.difficulty?.find((d) => !ds.difficulties.includes(d));
      if (level !== undefined) throw new ScenarioError(file, `${at}.difficulty`, `format "${n.dataset.format}" has no level ${level} (levels: ${ds.difficulties.join(', ')})`);
      return;
    }
    const spec = builtin.get(n.id);
    if (!spec) throw new ScenarioError(file, `${at}.id`, `unknown niche "${n.id}" (built-in: ${[...builtin.keys()].join(', ')}; or give a dataset)`);
    const bad = n.difficulty?.find((d) => !spec.difficulties.includes(d));
    if (bad !== undefined) throw new ScenarioError(file, `${at}.difficulty`, `niche "${n.id}" has no level ${bad} (levels: ${spec.difficulties.join(', ')})`);
  });
  return { scenario, file, dir };
}

/** Read and validate a scenario file (JSON), given by path or by the name of a bundled one (`loadScenario("quickstart")`). */
export function loadScenario(fileOrName: string): LoadedScenario {
  const file = resolveScenario(fileOrName);
  if (!existsSync(file)) throw new ScenarioError(fileOrName, '', `scenario file not found${notFoundHint(fileOrName)}`);
  if (statSync(file).isDirectory()) {
    const inside = readdirSync(file).filter((f) => f.endsWith('.json')).slice(0, 3);
    throw new ScenarioError(fileOrName, '', `is a directory, not a scenario file; give a .json file${inside.length ? ` (here: ${inside.join(', ')})` : ''}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new ScenarioError(file, '', `not valid JSON: ${(err as Error).message}`);
  }
  return parseScenario(json, file, path.dirname(path.resolve(file)));
}

/** The scenarios shipped with the package (`scenarios/` beside `src/` and `dist/`). */
export const BUNDLED_SCENARIOS_DIR = fileURLToPath(new URL('../../../scenarios/', import.meta.url));

/** Names of the bundled scenarios (`quickstart`, `hard`, …), sorted. */
export function bundledScenarios(): string[] {
  return readdirSync(BUNDLED_SCENARIOS_DIR).filter((f) => f.endsWith('.json')).map((f) => f.slice(0, -'.json'.length)).sort();
}

/** Why a scenario was not found: the nearest bundled name (or file beside it) to a misspelt one, else the bundled names. */
function notFoundHint(fileOrName: string): string {
  const bare = isBareName(fileOrName);
  const dir = path.dirname(fileOrName);
  const beside = !bare && existsSync(dir) && statSync(dir).isDirectory() ? readdirSync(dir).filter((f) => f.endsWith('.json')).map((f) => f.slice(0, -'.json'.length)) : [];
  const near = nearestKey(path.basename(fileOrName).replace(/\.json$/, ''), bare ? bundledScenarios() : beside);
  if (near !== undefined) return ` (did you mean ${bare ? near : path.join(dir, `${near}.json`)}?)`;
  return bare ? ` (bundled scenarios: ${bundledScenarios().join(', ')})` : '';
}

/** A name with no directory and no extension, such as `quickstart`. */
const isBareName = (s: string) => !s.includes('/') && !s.includes('\\') && !s.endsWith('.json');

/**
 * Where a scenario is: a path as given when a file is there, else a bare name (`quickstart`) of a
 * bundled scenario, so a script in another project can load them without knowing where the package lives.
 */
export function resolveScenario(fileOrName: string): string {
  if (existsSync(fileOrName) || !isBareName(fileOrName)) return fileOrName;
  return path.join(BUNDLED_SCENARIOS_DIR, `${fileOrName}.json`);
}

/** Deep partial, for overrides. */
export type DeepPartial<T> = T extends readonly (infer U)[] ? U[] : T extends object ? { [K in keyof T]?: DeepPartial<T[K]> } : T;

function merge(base: unknown, patch: unknown): unknown {
  if (patch === undefined) return base;
  if (patch === null || typeof patch !== 'object' || Array.isArray(patch)) return patch;
  const out: Record<string, unknown> = { ...(base && typeof base === 'object' ? (base as Record<string, unknown>) : {}) };
  for (const [k, v] of Object.entries(patch)) out[k] = merge(out[k], v);
  return out;
}

/** A copy of a loaded scenario with parts overridden (deep merge; arrays replace), re-validated. */
export function withOverrides(loaded: LoadedScenario, patch: DeepPartial<ScenarioInput>): LoadedScenario {
  return parseScenario(merge(loaded.scenario, patch), `${loaded.file} (with overrides)`, loaded.dir);
}
