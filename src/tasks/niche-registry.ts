import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { NicheEntry } from '../engine/scenario-schema';
import { loadGsm8k } from './datasets/gsm8k';
import { createGrader } from './graders';
import { getGenerator } from './generators';
import type { Niche, NicheSpec } from './niche';
import { loadNicheSpecs } from './niche-schema';
import type { Domain, Grader } from './task';

/** The repo's `niches/` folder. */
export const BUILTIN_NICHES_DIR = fileURLToPath(new URL('../../niches/', import.meta.url));

let builtin: Map<string, NicheSpec> | undefined;

/** Built-in niche specs by id, loaded and validated once. */
export function loadBuiltinNicheSpecs(): Map<string, NicheSpec> {
  builtin ??= new Map(loadNicheSpecs(BUILTIN_NICHES_DIR).map((s) => [s.id, s]));
  return builtin;
}

/** Grader options for a run. */
export interface GraderOptions {
  readonly codeWorkers: number;
  readonly codeTimeoutMs: number;
}

/** One grader per domain, created on first need (the code grader starts its sandbox pool then). */
export class GraderSet {
  private readonly graders = new Map<Domain, Grader>();
  constructor(private readonly opts: GraderOptions) {}

  /** The grader for a domain. */
  get(domain: Domain): Grader {
    let g = this.graders.get(domain);
    if (!g) {
      g = domain === 'code'
        ? createGrader('code', { workers: this.opts.codeWorkers, timeoutMs: this.opts.codeTimeoutMs })
        : createGrader(domain);
      this.graders.set(domain, g);
    }
    return g;
  }

  /** Stop pooled workers. */
  async close(): Promise<void> {
    await Promise.all([...this.graders.values()].map((g) => g.close?.()));
  }
}

const DATASET_SPECS: Record<string, Omit<NicheSpec, 'id' | 'dataset'>> = {
  gsm8k: {
    domain: 'math', title: 'Grade-school math', description: 'multi-step grade-school arithmetic word problems',
    keywords: ['arithmetic', 'word problems'], difficulties: [1], answerFormat: 'Give the final answer as \\boxed{...}.',
  },
};

function datasetNiche(entry: NicheEntry, dir: string, graders: GraderSet): Niche {
  const ds = entry.dataset!;
  const file = path.resolve(dir, ds.path);
  const { rows, skipped } = loadGsm8k(file);
  if (rows.length === 0) throw new Error(`${file}: no usable ${ds.format} rows (${skipped} malformed)`);
  const spec: NicheSpec = { id: entry.id, ...DATASET_SPECS[ds.format]!, dataset: { format: ds.format, path: file } };
  let cursor = 0;
  return { spec, grader: graders.get(spec.domain), next: () => rows[cursor++ % rows.length]!, skippedRows: skipped };
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
