// An ablation directory of N variants for the chart tests, made from three real runs (quickstart on the
// simulated model) copied under each variant's name: ablation-plan.json, ablation.json (with the paired
// comparison) and one run directory per variant and seed, as `ablate` leaves them.
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { loadScenario, runScenario } from '../../src/index';
import { addPairedStats } from '../../src/report/paired-stats';

/** Variant names: the default ablation's, then extras, as many as asked. */
export const VARIANT_NAMES = [
  'evochamber', 'no-codream', 'no-lifecycle', 'no-team', 'no-leadlearn', 'no-population', 'symmetric-codream',
  'per-agent-memory', 'shared-memory', 'structure-only', 'individual', 'self-consistency', 'single-agent',
  'bandit-chooser', 'no-reflection', 'wide-pool', 'narrow-pool', 'meta', 'debate-only', 'voting-only',
];

/** Base runs: three presets over `seeds`, `tasks` each, in `root/base`. */
export async function baseRuns(root: string, seeds = [1, 2], tasks = 24): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const scenario = loadScenario(path.resolve('scenarios/quickstart.json'));
  for (const variant of ['evochamber', 'no-codream', 'single-agent']) {
    for (const seed of seeds) {
      const dir = path.join(root, 'base', `${variant}-s${seed}`);
      await runScenario(scenario, { patch: { variant, seed, 'stream.tasks': tasks }, outDir: dir, report: false });
      out.set(`${variant}/${seed}`, dir);
    }
  }
  return out;
}

/** An ablation directory of the first `n` variant names, each one's runs copies of a base run. */
export async function manyVariantAblation(root: string, n: number, base: Map<string, string>, seeds = [1, 2]): Promise<string> {
  const dir = path.join(root, `ablate-${n}`);
  mkdirSync(dir, { recursive: true });
  const kinds = ['evochamber', 'no-codream', 'single-agent'];
  const names = VARIANT_NAMES.slice(0, n);
  const variants: Record<string, unknown> = {};
  const stat = (xs: number[]) => { const m = xs.reduce((a, b) => a + b, 0) / xs.length; return { mean: m, sd: Math.sqrt(xs.reduce((a, x) => a + (x - m) ** 2, 0) / Math.max(1, xs.length - 1)) }; };
  names.forEach((name, i) => {
    const runs = seeds.map((seed) => {
      const to = path.join(dir, `${name}-s${seed}`);
      cpSync(base.get(`${kinds[i % 3]}/${seed}`)!, to, { recursive: true });
      return to;
    });
    const sums = runs.map((r) => (JSON.parse(readFileSync(path.join(r, 'run.json'), 'utf8')) as { summary: { accuracy: number; perNiche: Record<string, number>; stableSpecialists: number; tokens: { total: { promptTokens: number; completionTokens: number } } } }).summary);
    const niches = Object.keys(sums[0]!.perNiche);
    const tokens = sums.map((s) => s.tokens.total.promptTokens + s.tokens.total.completionTokens);
    variants[name] = {
      accuracy: stat(sums.map((s) => s.accuracy)), perNiche: Object.fromEntries(niches.map((ni) => [ni, stat(sums.map((s) => s.perNiche[ni] ?? 0))])),
      stableSpecialists: stat(sums.map((s) => s.stableSpecialists)), tokens: stat(tokens), completionTokens: stat(sums.map((s) => s.tokens.total.completionTokens)),
      // Spread the copies apart (the cost chart reads these figures): each variant a little dearer and better than the one before of its kind.
      perSeed: sums.map((s, j) => ({ seed: seeds[j], accuracy: Math.min(1, s.accuracy + 0.012 * Math.floor(i / 3)), perNiche: s.perNiche, stableSpecialists: s.stableSpecialists, tokens: Math.round(tokens[j]! * (1 + 0.06 * Math.floor(i / 3))), completionTokens: s.tokens.total.completionTokens })),
      runs,
    };
  });
  writeFileSync(path.join(dir, 'ablation-plan.json'), JSON.stringify({ schemaVersion: 2, variants: names, seeds: seeds.length, patch: {} }));
  writeFileSync(path.join(dir, 'ablation.json'), JSON.stringify({ variants, seeds: seeds.length, scenario: 'quickstart', seedList: seeds }, null, 2));
  await addPairedStats(dir);
  return dir;
}
