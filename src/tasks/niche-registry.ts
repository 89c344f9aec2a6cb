import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { NicheEntry } from './niche-entry';
import { DATASET_SPECS } from './datasets/formats';
import { getDomain } from './domains';
import { getGenerator } from './generators';
import type { GeneratedTask, Niche, NicheSpec } from './niche';
import { loadNicheSpecs, parseNicheSpec } from './niche-schema';
import type { Domain, Grader } from './task';

/** The repo's `niches/` folder. */
export const BUILTIN_NICHES_DIR = fileURLToPath(new URL('../../niches/', import.meta.url));

let builtin: Map<string, NicheSpec> | undefined;

/** Built-in niche specs by id (and any `registerNicheSpec` added), loaded and validated once. */
export function loadBuiltinNicheSpecs(): Map<string, NicheSpec> {
  builtin ??= new Map(loadNicheSpecs(BUILTIN_NICHES_DIR).map((s) => [s.id, s]));
  return builtin;
}

/**
 * Make a niche known to every later scenario of this process, as if its file were in `niches/`
 * (checked like one: its domain must be registered, its generator too when the stream draws from it).
 */
export function registerNicheSpec(raw: unknown): NicheSpec {
  const spec = parseNicheSpec(raw, '<registered niche>');
  const had = loadBuiltinNicheSpecs().get(spec.id);
  if (had && JSON.stringify(had) !== JSON.stringify(spec)) throw new Error(`niche "${spec.id}" is registered already`);
  loadBuiltinNicheSpecs().set(spec.id, spec);
  return spec;
}

/** Grader options for a run. */
export interface GraderOptions {
  readonly codeWorkers: number;
  readonly codeTimeoutMs: number;
  /** Grade code without bubblewrap when the host lacks it (otherwise the code grader refuses to start). */
  readonly allowUnsandboxed?: boolean;
  /** Keep code verdicts on disk in this directory too (verdict-disk.ts); unset: in memory only. */
  readonly verdictDir?: string;
}

/** One grader per domain, created on first need (the code grader starts its sandbox pool then). */
export class GraderSet {
  private readonly graders = new Map<Domain, Grader>();
  constructor(private readonly opts: GraderOptions) {}

  /** The grader for a domain. */
  get(domain: Domain): Grader {
    let g = this.graders.get(domain);
    if (!g) {
      g = getDomain(domain).createGrader(this.opts);
      this.graders.set(domain, g);
    }
    return g;
  }

  /** Stop pooled workers. */
  async close(): Promise<void> {
    await Promise.all([...this.graders.values()].map((g) => g.close?.()));
  }
}

/**
 * A niche over a dataset file. Its levels are those present in the (filtered) rows; `next(d)`
 * walks the rows of level `d` in file order, wrapping around.
 */
function datasetNiche(entry: NicheEntry, dir: string, graders: GraderSet): Niche {
  const ds = entry.dataset!;
  const file = path.resolve(dir, ds.path);
  const format = DATASET_SPECS[ds.format];
  const { rows, skipped, filtered = 0 } = format.load(file, ds.filter);
  if (rows.length === 0) throw new Error(`${file}: no usable ${ds.format} rows (${skipped} malformed, ${filtered} filtered out)`);
  const byLevel = new Map<number, GeneratedTask[]>();
  for (const r of rows) {
    const level = byLevel.get(r.difficulty);
    if (level) level.push(r);
    else byLevel.set(r.difficulty, [r]);
  }
  const missing = entry.difficulty?.find((d) => !byLevel.has(d));
  if (missing !== undefined) throw new Error(`${file}: niche "${entry.id}" has no rows at level ${missing}`);
  const difficulties = [...byLevel.keys()].sort((a, b) => a - b);
  const spec: NicheSpec = { id: entry.id, ...format.spec, difficulties, dataset: { format: ds.format, path: file } };
  const cursors = new Map<number, number>();
  const next = (d: number): GeneratedTask => {
    const level = byLevel.get(d) ?? rows;
    const i = cursors.get(d) ?? 0;
    cursors.set(d, i + 1);
    return level[i % level.length]!;
  };
  const drawable = (entry.difficulty ?? difficulties).reduce((n, d) => n + (byLevel.get(d)?.length ?? 0), 0);
  return { spec, grader: graders.get(spec.domain), next, skippedRows: skipped, rows: drawable };
}

/** Build the niches a stream uses: built-in generators or dataset files. */
export function buildNiches(entries: readonly NicheEntry[], dir: string, graders: GraderSet): Map<string, Niche> {
  const specs = loadBuiltinNicheSpecs();
  const out = new Map<string, Niche>();
  for (const entry of entries) {
    if (entry.dataset) {
      out.set(entry.id, datasetNiche(entry, dir, graders));
      continue;
    }
    const spec = specs.get(entry.id);
    if (!spec?.generator) throw new Error(`unknown niche "${entry.id}"`);
    const generate = getGenerator(spec.generator);
    out.set(entry.id, { spec, grader: graders.get(spec.domain), next: (d, rng) => generate(d, rng) });
  }
  return out;
}
