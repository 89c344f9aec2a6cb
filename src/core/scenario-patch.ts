/**
 * An override of a scenario: values keyed by the dotted path of the setting they replace
 * (`{ "seed": 3, "stream.tasks": 60, "engine.staleness.policy": "drop" }`). Every override is one:
 * a CLI flag, an ablation's variant and seed, a queued job, a resume's new budget, a meta edit, a
 * reproduce command. Each entry replaces the value at its path (the parts above it are kept), in
 * the patch's order; the scenario schema validates the result where the run is made
 * (`applyScenarioPatch`, engine/scenario/scenario-patch.ts). Plain JSON: it travels in run.json,
 * ablation-plan.json, to worker processes and on the queue.
 */
export type ScenarioPatch = { readonly [P in PatchPath]?: unknown };

/**
 * The scenario's paths, as a type. Core cannot see the scenario's schema, so the engine fills this
 * in by declaration merging (engine/scenario/knob-path.ts: `{ path: PatchPathOf<Scenario> }`); every
 * patch written in code, in any layer, is then checked by the compiler (`patchWithout(p, ['engine',
 * 'sweepBudget'])`, `{ 'stream.tasks': 60 }`), and a misspelt path does not compile.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-interface -- filled in by the engine
export interface ScenarioPaths {}

/** A path a patch written in code may name: a setting or a section of the scenario (a plug-in's `sim.*` are free). */
export type PatchPath = ScenarioPaths extends { readonly path: infer P extends string } ? P : string;

/**
 * Every dotted path of `T`: each field and, below an object field, its own paths; a record keyed by
 * free names (`sim`, a plug-in's) gives `name.<anything>`; arrays and functions are values.
 */
export type PatchPathOf<T> = T extends unknown
  ? { [K in keyof T & string]-?: string extends K ? string : K | `${K}.${SubPath<T[K]>}` }[keyof T & string]
  : never;
type SubPath<V> = NonNullable<V> extends readonly unknown[] | ((...args: never[]) => unknown) ? never
  : NonNullable<V> extends object ? PatchPathOf<NonNullable<V>> : never;

/** A patch of the entries that are set: `undefined` ones are left out (an unset flag overrides nothing). */
export function scenarioPatch(entries: ScenarioPatch): ScenarioPatch {
  return Object.fromEntries(Object.entries(entries).filter(([, v]) => v !== undefined));
}

/** Patches one after another: a later entry for the same path wins (and takes the later place in the order). */
export function mergePatches(...patches: ReadonlyArray<ScenarioPatch | undefined>): ScenarioPatch {
  const out: Record<string, unknown> = {};
  for (const p of patches) {
    for (const [path, value] of Object.entries(p ?? {})) {
      delete out[path];
      out[path] = value;
    }
  }
  return out;
}

/** A plain object with `value` at the dotted `path` (objects on the way are copied, never changed). */
export function setAt(obj: unknown, path: string, value: unknown): Record<string, unknown> {
  const base = obj !== null && typeof obj === 'object' && !Array.isArray(obj) ? (obj as Record<string, unknown>) : {};
  const [head, ...rest] = path.split('.');
  return { ...base, [head!]: rest.length === 0 ? value : setAt(base[head!], rest.join('.'), value) };
}

/** The value at a dotted path of a plain object (undefined when absent). */
export function valueAt(obj: unknown, path: string): unknown {
  let v: unknown = obj;
  for (const part of path.split('.')) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<string, unknown>)[part];
  }
  return v;
}

/** `obj` with every entry of `patch` set, in order (unvalidated: the caller's schema checks the result). */
export function patched(obj: unknown, patch: ScenarioPatch): Record<string, unknown> {
  let out = (obj ?? {}) as Record<string, unknown>;
  for (const [path, value] of Object.entries(patch)) out = setAt(out, path, value);
  return out;
}

/** A path a patch may name: dot-separated identifiers. */
const PATH = /^[A-Za-z_$][\w$-]*(\.[A-Za-z_$][\w$-]*)*$/;

/**
 * One entry as text, `path=value`: the value as JSON, except a string JSON would not read back as
 * the same string (`lag`, `evochamber`), which stays bare.
 */
export function patchEntryText(path: string, value: unknown): string {
  if (typeof value === 'string' && readValue(value) === value) return `${path}=${value}`;
  return `${path}=${JSON.stringify(value)}`;
}

function readValue(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** Parse `path=value` (the form `patchEntryText` writes); throws naming the entry when it has no path. */
export function parsePatchEntry(text: string): [string, unknown] {
  const at = text.indexOf('=');
  const path = at < 0 ? '' : text.slice(0, at);
  if (!PATH.test(path)) throw new Error(`"${text}" is not PATH=VALUE (a dotted path such as engine.inFlight, then =, then a value)`);
  return [path, readValue(text.slice(at + 1))];
}

/** The patch as command-line words: `--set path=value` per entry, in order (`evochamber run` and `ablate` read them back). */
export function patchArgs(patch: ScenarioPatch): string[] {
  return Object.entries(patch).flatMap(([path, value]) => ['--set', patchEntryText(path, value)]);
}

/** One entry per field of `fields` under `prefix` (`budget` + `{ tokens: 5 }` → `budget.tokens: 5`): sets those fields, keeps the others. */
export function fieldsUnder(prefix: PatchPath, fields: Readonly<Record<string, unknown>> | undefined): ScenarioPatch {
  return scenarioPatch(Object.fromEntries(Object.entries(fields ?? {}).map(([k, v]) => [`${prefix}.${k}`, v])));
}

/** `patch` without the entries at or below any of `paths`. */
export function patchWithout(patch: ScenarioPatch, paths: readonly PatchPath[]): ScenarioPatch {
  return Object.fromEntries(Object.entries(patch).filter(([p]) => !paths.some((a) => p === a || p.startsWith(`${a}.`))));
}
