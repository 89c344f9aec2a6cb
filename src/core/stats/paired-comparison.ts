import { createRng } from '../rng';
import { BOOTSTRAP_RESAMPLES, holm, labelPermutationTest, PERMUTATIONS, signFlipTest, stratifiedBootstrap, unpairedBootstrap } from './resample';

/** One run's graded tasks, in commit order: its seed, each task's id and reward. */
export interface TaskRewards {
  readonly seed: number;
  readonly taskIds: readonly string[];
  readonly rewards: ArrayLike<number>;
}

/** One variant against the reference. */
export interface PairedRow {
  readonly variant: string;
  /**
   * `paired`: per-task differences over the tasks both ran (same seed, same task id); `unpaired`: no
   * task pairs, so the two sets of tasks are compared as independent samples; `none`: a side has no graded task.
   */
  readonly test: 'paired' | 'unpaired' | 'none';
  /** Pairs (paired), or the variant's tasks (unpaired). */
  readonly tasks: number;
  /** Unpaired only: the reference's tasks. */
  readonly referenceTasks?: number;
  /** Seeds the pairs come from (paired), or the variant's seeds (unpaired). */
  readonly seeds: number[];
  /** Mean reward of the variant minus the reference's over those tasks; null for `none`. */
  readonly difference: number | null;
  /** Its 95 % bootstrap interval. */
  readonly lo: number | null;
  readonly hi: number | null;
  /** Two-sided permutation p-value, and Holm-corrected across the rows tested. */
  readonly p: number | null;
  readonly pHolm: number | null;
}

/** Every variant against one reference: what ablation.json's `paired` holds. */
export interface PairedStats {
  readonly reference: string;
  readonly level: number;
  readonly resamples: number;
  readonly permutations: number;
  /** The seed the resampling draws from (the sweep's first seed). */
  readonly seed: number;
  readonly rows: PairedRow[];
}

const r4 = (x: number) => Math.round(x * 1e4) / 1e4;

/**
 * Each variant against `reference`: the mean per-task reward difference over the tasks they share,
 * its bootstrap interval (tasks resampled within seeds), a sign-flip p-value, and Holm's correction
 * across the variants. Where no task pairs, an unpaired comparison (labelled). Deterministic in
 * `seed`: each variant draws from its own stream, so adding a variant does not move another's figures.
 * Throws when `reference` is not one of the variants.
 */
export function pairedComparison(variants: readonly { readonly name: string; readonly runs: readonly TaskRewards[] }[], reference: string, seed: number): PairedStats {
  const ref = variants.find((v) => v.name === reference);
  if (!ref) throw new Error(`reference "${reference}" is not one of the variants (${variants.map((v) => v.name).join(', ')})`);
  const rows = variants.filter((v) => v.name !== reference).map((v) => compareOne(v.name, v.runs, ref.runs, seed));
  const tested = rows.filter((r) => r.p !== null);
  const adjusted = holm(tested.map((r) => r.p!));
  const byName = new Map(tested.map((r, i) => [r.variant, r4(adjusted[i]!)]));
  return {
    reference, level: 0.95, resamples: BOOTSTRAP_RESAMPLES, permutations: PERMUTATIONS, seed,
    rows: rows.map((r) => ({ ...r, pHolm: byName.get(r.variant) ?? null })),
  };
}

function compareOne(variant: string, runs: readonly TaskRewards[], refRuns: readonly TaskRewards[], seed: number): PairedRow {
  const rng = createRng(`paired/${seed}/${variant}`);
  const strata: number[][] = [];
  const seeds: number[] = [];
  for (const run of runs) {
    const other = refRuns.find((r) => r.seed === run.seed);
    if (!other) continue;
    const refReward = new Map<string, number>();
    other.taskIds.forEach((id, i) => refReward.set(id, other.rewards[i]!));
    const diffs: number[] = [];
    run.taskIds.forEach((id, i) => { const b = refReward.get(id); if (b !== undefined) diffs.push(run.rewards[i]! - b); });
    if (diffs.length) { strata.push(diffs); seeds.push(run.seed); }
  }
  const pairs = strata.flat();
  if (pairs.length > 0) {
    const ci = stratifiedBootstrap(strata, rng.fork('bootstrap'));
    return {
      variant, test: 'paired', tasks: pairs.length, seeds, difference: r4(pairs.reduce((a, b) => a + b, 0) / pairs.length),
      lo: r4(ci.lo), hi: r4(ci.hi), p: r4(signFlipTest(pairs, rng.fork('sign-flip'))), pHolm: null,
    };
  }
  const a = runs.flatMap((r) => Array.from(r.rewards));
  const b = refRuns.flatMap((r) => Array.from(r.rewards));
  if (a.length === 0 || b.length === 0) return { variant, test: 'none', tasks: a.length, referenceTasks: b.length, seeds: runs.map((r) => r.seed), difference: null, lo: null, hi: null, p: null, pHolm: null };
  const ci = unpairedBootstrap(a, b, rng.fork('bootstrap'));
  const mean = (xs: number[]) => xs.reduce((x, y) => x + y, 0) / xs.length;
  return {
    variant, test: 'unpaired', tasks: a.length, referenceTasks: b.length, seeds: runs.map((r) => r.seed), difference: r4(mean(a) - mean(b)),
    lo: r4(ci.lo), hi: r4(ci.hi), p: r4(labelPermutationTest(a, b, rng.fork('permutation'))), pHolm: null,
  };
}

/** The rows as plain-text lines under a heading (the ablation table's and `compare`'s). */
export function formatPairedTable(s: PairedStats): string[] {
  if (s.rows.length === 0) return [];
  const w = Math.max(8, ...s.rows.map((r) => r.variant.length));
  const sign = (x: number) => `${x >= 0 ? '+' : ''}${x.toFixed(3)}`;
  const p = (x: number) => (x < 0.001 ? '<0.001' : x.toFixed(3));
  const head = `${'variant'.padEnd(w)} ${'test'.padEnd(8)} ${'tasks'.padStart(6)} ${'difference'.padStart(10)} ${'95 % interval'.padStart(17)} ${'p'.padStart(7)} ${'p (Holm)'.padStart(8)}`;
  const rows = s.rows.map((r) => (r.difference === null
    ? `${r.variant.padEnd(w)} ${'–'.padEnd(8)} ${String(r.tasks).padStart(6)}  (no graded tasks on one side)`
    : `${r.variant.padEnd(w)} ${r.test.padEnd(8)} ${String(r.tasks).padStart(6)} ${sign(r.difference).padStart(10)} ${`[${sign(r.lo!)}, ${sign(r.hi!)}]`.padStart(17)} ${p(r.p!).padStart(7)} ${p(r.pHolm!).padStart(8)}${r.pHolm! < 0.05 ? ' *' : ''}`));
  return [
    `against ${s.reference}: per-task reward difference (variant − ${s.reference}) over the tasks both ran (same seed, same task id); ` +
    `${Math.round(s.level * 100)} % bootstrap interval over tasks within seeds; two-sided sign-flip p; Holm-corrected across ${s.rows.filter((r) => r.p !== null).length} variants (* p (Holm) < 0.05)`,
    head, ...rows,
  ];
}
