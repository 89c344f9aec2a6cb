import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { DEFAULT_SIM_PARAMS, resolveSimParams, type SimParams } from './sim-params';

/**
 * Overrides of DEFAULT_SIM_PARAMS, derived from it (a new parameter in sim-params.ts is accepted
 * here with no edit; a name that is not one is refused as an unknown field).
 */
export const simParamsSchema = z.strictObject(
  Object.fromEntries(
    Object.entries(DEFAULT_SIM_PARAMS).map(([k, v]) => [
      k,
      typeof v === 'number'
        ? z.number().optional()
        // Per-domain numbers (and `default`): any domain may be named, a registered one or not yet.
        : z.record(z.string(), z.number().positive()).optional(),
    ]),
  ),
);

/** Version of the world file format. */
export const WORLD_SCHEMA_VERSION = 1;

/**
 * A world file (docs/calibration.md, "World files"): simulator parameters, global and per niche.
 * `fit` is what `evochamber calibrate` records about how the world was made; the simulator reads
 * only `params` and `niches`.
 */
export const worldFileSchema = z.strictObject({
  schemaVersion: z.literal(WORLD_SCHEMA_VERSION),
  name: z.string().min(1),
  description: z.string().optional(),
  /** Global overrides of DEFAULT_SIM_PARAMS. */
  params: simParamsSchema.default({}),
  /** Per niche id: overrides on top of the global ones, for that niche's tasks only. */
  niches: z.record(z.string(), simParamsSchema).default({}),
  /** How the world was fitted (targets, objective, parameters); never read by the simulator. */
  fit: z.record(z.string(), z.unknown()).optional(),
});

/** A world as the simulator reads it. */
export type WorldFile = z.infer<typeof worldFileSchema>;

/** A world inlined in a scenario (`sim.world` after loading): the file's content and where it came from. */
export type InlinedWorld = WorldFile & { readonly source?: string };

/** A world file that failed to load: one line naming the file and the field. */
export class WorldFileError extends Error {
  constructor(readonly file: string, readonly field: string, detail: string) {
    super(`${file}: ${field ? `${field}: ` : ''}${detail}`);
    this.name = 'WorldFileError';
  }
}

/** The bundled worlds (`scenarios/worlds/` beside `src/` and `dist/`). */
export const BUNDLED_WORLDS_DIR = fileURLToPath(new URL('../../scenarios/worlds/', import.meta.url));

/** Files beside the bundled worlds that are not worlds: a world's targets and its registered prediction. */
const NOT_WORLDS = ['.targets.json', '.prediction.json'];

/** Names of the bundled worlds, sorted (the targets and prediction files beside them are not worlds). */
export function bundledWorlds(): string[] {
  if (!existsSync(BUNDLED_WORLDS_DIR)) return [];
  return readdirSync(BUNDLED_WORLDS_DIR).filter((f) => f.endsWith('.json') && !NOT_WORLDS.some((x) => f.endsWith(x))).map((f) => f.slice(0, -5)).sort();
}

const isBareName = (s: string) => !s.includes('/') && !s.includes('\\') && !s.endsWith('.json');

/** Where a world is: `ref` relative to `dir` when a file is there, else a bundled world's name. */
export function resolveWorldPath(ref: string, dir: string): string {
  const local = path.resolve(dir, ref);
  if (existsSync(local) || !isBareName(ref)) return local;
  return path.join(BUNDLED_WORLDS_DIR, `${ref}.json`);
}

function issueLine(file: string, error: z.ZodError): WorldFileError {
  const issue = error.issues[0]!;
  const at = [...issue.path, ...(issue.code === 'unrecognized_keys' ? [issue.keys[0]!] : [])].map(String).join('.');
  if (issue.code === 'unrecognized_keys' && (issue.path[0] === 'params' || issue.path[0] === 'niches')) {
    return new WorldFileError(file, at, 'unknown simulator parameter (docs/simulated-model.md lists them)');
  }
  return new WorldFileError(file, at, issue.code === 'unrecognized_keys' ? 'unknown field' : issue.message);
}

/** Validate a world object; errors name `file` and the field. */
export function parseWorld(input: unknown, file = '<world>'): WorldFile {
  const parsed = worldFileSchema.safeParse(input);
  if (!parsed.success) throw issueLine(file, parsed.error);
  return parsed.data;
}

/** Read and validate a world file, given by path (relative to `dir`) or by a bundled world's name. */
export function loadWorldFile(ref: string, dir = process.cwd()): InlinedWorld {
  const file = resolveWorldPath(ref, dir);
  if (!existsSync(file)) {
    const names = bundledWorlds();
    throw new WorldFileError(ref, '', `world file not found${isBareName(ref) ? ` (bundled worlds: ${names.length ? names.join(', ') : 'none'})` : ''}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new WorldFileError(file, '', `not valid JSON: ${(err as Error).message}`);
  }
  return { ...parseWorld(json, file), source: file };
}

/**
 * The parameters a world gives: defaults, then the scenario's own `sim` overrides, then the
 * world's global ones; `forNiche` adds the world's overrides for that niche.
 */
export interface WorldParams {
  readonly global: SimParams;
  forNiche(niche: string): SimParams;
}

/** Resolve a world over the scenario's inline overrides (docs/calibration.md, "Precedence"). */
export function worldParams(inline: Partial<SimParams>, world: Pick<WorldFile, 'params' | 'niches'> | undefined): WorldParams {
  const globalOverrides = mergeParams(inline, (world?.params ?? {}) as Partial<SimParams>);
  const global = resolveSimParams(globalOverrides);
  const cache = new Map<string, SimParams>();
  const niches = world?.niches ?? {};
  return {
    global,
    forNiche(niche) {
      const own = niches[niche];
      if (!own) return global;
      let p = cache.get(niche);
      if (!p) {
        p = resolveSimParams(mergeParams(globalOverrides, own as Partial<SimParams>));
        cache.set(niche, p);
      }
      return p;
    },
  };
}

/** Overrides `b` over `a`, per-domain records merged key by key. */
export function mergeParams(a: Partial<SimParams>, b: Partial<SimParams>): Partial<SimParams> {
  const out: Record<string, unknown> = { ...a };
  for (const [k, v] of Object.entries(b)) {
    const prev = out[k];
    out[k] = v !== null && typeof v === 'object' && prev !== null && typeof prev === 'object' ? { ...prev, ...v } : v;
  }
  return out as Partial<SimParams>;
}

/** The numeric simulator parameters a fit may move (every top-level number of DEFAULT_SIM_PARAMS). */
export const NUMERIC_SIM_PARAMS: readonly string[] = Object.entries(DEFAULT_SIM_PARAMS)
  .filter(([, v]) => typeof v === 'number').map(([k]) => k);

/**
 * The parameters `calibrate` may fit, with the bounds of its search (docs/calibration.md, "What
 * it fits"): the continuous ones whose effect on accuracy is direct. Probabilities are bounded by
 * [0, 1]; logit terms by a range wide enough for a bare model from hopeless to near-certain.
 * Integer parameters (strategy counts, caps) are the world's form, not fitted.
 */
export const FIT_RANGES: Readonly<Record<string, readonly [number, number]>> = {
  base: [-4, 5],
  personaMatch: [0, 3],
  coverage: [0, 6],
  subdomain: [0, 2],
  crossDomain: [0, 2],
  difficulty: [0, 3],
  dilution: [0, 1],
  discoverOnSuccess: [0, 1],
  discoverOnFailure: [0, 1],
  metaDiscovery: [0, 1],
  distractorSkew: [0.05, 1],
  uniqueMistake: [0, 1],
  recognize: [0, 4],
  conformity: [0, 4],
  peerUptake: [0, 1],
  testFeedback: [0, 4],
  stepUptake: [0, 1],
  criticCoverage: [0, 4],
  strategyRarity: [0, 3],
  wrongLesson: [0, 0.9],
  reflectDifficulty: [0, 2],
  reflectCompetence: [0, 1],
  contrastUptake: [0, 1],
  familyRarity: [0, 3],
  foreignMislead: [0, 1],
  misleadCost: [0, 3],
  expertise: [0, 3],
  offNichePersona: [0, 3],
  leaderExplore: [0, 2],
  leaderPrior: [0, 20],
  leaderRetry: [0, 0.5],
};

/**
 * The paper form's fittable settings (docs/simulated-model.md, "The paper form"), each in
 * FIT_RANGES: the mechanisms the method's causal story needs, and the structure and leader
 * constants that decide what a structure is worth. A calibration names them with `--fit` like any
 * other; the integer form settings beside them (`strategiesPerNiche`, `taskFamilies`,
 * `expertiseSaturation`, `contextBudget`) are the world's form and are not fitted.
 */
export const PAPER_FORM_FIT_PARAMS: readonly string[] = [
  'reflectDifficulty', 'reflectCompetence', 'contrastUptake', 'familyRarity', 'foreignMislead', 'misleadCost',
  'expertise', 'offNichePersona', 'recognize', 'testFeedback', 'conformity', 'stepUptake', 'leaderExplore', 'leaderPrior', 'leaderRetry',
];

/** A parameter to fit, parsed: `base` (global) or `base@aime` (that niche only), its bounds and its value in `world` now. */
export interface WorldFitParameter {
  readonly name: string;
  readonly param: string;
  readonly niche?: string;
  readonly lo: number;
  readonly hi: number;
  readonly start: number;
}

/** Parse a `--fit` name against the world it starts from; an error names what is wrong in one line. */
export function parseFitName(name: string, world: Pick<WorldFile, 'params' | 'niches'> | undefined, inline: Partial<SimParams> = {}): WorldFitParameter {
  const [param = '', niche, extra] = name.split('@');
  if (extra !== undefined || niche === '') throw new Error(`--fit: "${name}" is not a parameter or parameter@niche`);
  const range = FIT_RANGES[param];
  if (!range) {
    const known = Object.hasOwn(DEFAULT_SIM_PARAMS, param);
    throw new Error(`--fit: ${known ? `"${param}" is not fitted (integer or timing parameters are the world's form)` : `unknown simulator parameter "${param}"`}; fittable: ${Object.keys(FIT_RANGES).join(', ')}`);
  }
  const wp = worldParams(inline, world);
  const now = (niche === undefined ? wp.global : wp.forNiche(niche))[param as keyof SimParams] as number;
  const start = Math.min(range[1], Math.max(range[0], now));
  return { name, param, ...(niche !== undefined ? { niche } : {}), lo: range[0], hi: range[1], start };
}

/** `base` with fitted values set: globals into `params`, `x@niche` into that niche's overrides. */
export function worldWithValues(base: Pick<WorldFile, 'params' | 'niches'> | undefined, fit: readonly WorldFitParameter[], values: readonly number[]): Pick<WorldFile, 'params' | 'niches'> {
  const params: Record<string, unknown> = { ...(base?.params ?? {}) };
  const niches: Record<string, Record<string, unknown>> = Object.fromEntries(Object.entries(base?.niches ?? {}).map(([n, o]) => [n, { ...o }]));
  fit.forEach((p, i) => {
    if (p.niche === undefined) params[p.param] = values[i];
    else (niches[p.niche] ??= {})[p.param] = values[i];
  });
  return { params: params as WorldFile['params'], niches: niches as WorldFile['niches'] };
}
