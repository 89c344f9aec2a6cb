import { describe, expect, it } from 'vitest';
import { createRng } from '../../../src/core/rng';
import { holm, labelPermutationTest, signFlipTest, stratifiedBootstrap } from '../../../src/core/stats/resample';
import { pairedComparison, type TaskRewards } from '../../../src/core/stats/paired-comparison';

/** A run of `n` tasks whose reward is 1 with probability p (seeded), task ids t0…t(n-1). */
function run(seed: number, n: number, p: number, label: string): TaskRewards {
  const rng = createRng(`${label}/${seed}`);
  return { seed, taskIds: Array.from({ length: n }, (_, i) => `t${i}`), rewards: Array.from({ length: n }, () => (rng.chance(p) ? 1 : 0)) };
}

describe('Holm correction', () => {
  it('multiplies the k-th smallest p by m − k + 1, keeps them monotone and at most 1, in input order', () => {
    expect(holm([0.01, 0.04, 0.03, 0.5])).toEqual([0.04, 0.09, 0.09, 0.5]);
    expect(holm([0.2, 0.9])).toEqual([0.4, 0.9]);
    expect(holm([0.6, 0.7])).toEqual([1, 1]);
    expect(holm([])).toEqual([]);
  });
});

describe('sign-flip test', () => {
  it('gives p = 1 when every difference is 0, and near 2^-n·draws for all-positive differences', () => {
    expect(signFlipTest([0, 0, 0], createRng(1), 999)).toBe(1);
    // Six +1 differences: only the two all-same-sign flips are as extreme, p ≈ 2/64.
    const p = signFlipTest([1, 1, 1, 1, 1, 1], createRng(2), 20000);
    expect(p).toBeGreaterThan(0.025);
    expect(p).toBeLessThan(0.038);
  });

  it('is uniform-ish under no difference: about 5 % of null data sets fall below 0.05', () => {
    let small = 0;
    for (let k = 0; k < 200; k++) {
      const rng = createRng(`null/${k}`);
      const d = Array.from({ length: 40 }, () => rng.normal());
      if (signFlipTest(d, createRng(k), 999) < 0.05) small++;
    }
    expect(small).toBeGreaterThan(2);
    expect(small).toBeLessThan(22);
  });
});

describe('label permutation test', () => {
  it('finds a clear difference and none between two halves of one sample', () => {
    expect(labelPermutationTest([1, 1, 1, 1, 1, 1, 1, 1], [0, 0, 0, 0, 0, 0, 0, 0], createRng(1), 4999)).toBeLessThan(0.001);
    expect(labelPermutationTest([1, 0, 1, 0], [0, 1, 0, 1], createRng(1), 4999)).toBe(1);
  });
});

describe('stratified bootstrap', () => {
  it('keeps a constant difference a point and brackets the mean of a varied one', () => {
    expect(stratifiedBootstrap([[0.5, 0.5], [0.5]], createRng(1))).toEqual({ lo: 0.5, hi: 0.5 });
    const rng = createRng('d');
    const d = [Array.from({ length: 100 }, () => 0.1 + rng.normal() * 0.3), Array.from({ length: 100 }, () => 0.1 + rng.normal() * 0.3)];
    const mean = d.flat().reduce((a, b) => a + b, 0) / 200;
    const ci = stratifiedBootstrap(d, createRng(2));
    expect(ci.lo).toBeLessThan(mean);
    expect(ci.hi).toBeGreaterThan(mean);
    // The standard error is about 0.3/√200 ≈ 0.021, so the 95 % interval is about ±0.042 wide.
    expect(ci.hi - ci.lo).toBeGreaterThan(0.06);
    expect(ci.hi - ci.lo).toBeLessThan(0.11);
  });
});

describe('pairedComparison', () => {
  const seeds = [1, 2, 3];
  const variants = [
    { name: 'full', runs: seeds.map((s) => run(s, 100, 0.7, 'full')) },
    { name: 'same', runs: seeds.map((s) => run(s, 100, 0.7, 'full')).map((r) => ({ ...r, rewards: Array.from(r.rewards) })) },
    { name: 'worse', runs: seeds.map((s) => run(s, 100, 0.4, 'worse')) },
    { name: 'other-seeds', runs: [7, 8].map((s) => run(s, 100, 0.7, 'other')) },
  ];

  it('pairs on seed and task id, corrects across variants, and labels the unpaired row', () => {
    const r = pairedComparison(variants, 'full', 1);
    expect(r.reference).toBe('full');
    const by = Object.fromEntries(r.rows.map((x) => [x.variant, x]));
    expect(Object.keys(by)).toEqual(['same', 'worse', 'other-seeds']);
    expect(by.same).toMatchObject({ test: 'paired', tasks: 300, seeds: [1, 2, 3], difference: 0, lo: 0, hi: 0, p: 1, pHolm: 1 });
    expect(by.worse!.test).toBe('paired');
    expect(by.worse!.difference!).toBeLessThan(-0.2);
    expect(by.worse!.hi!).toBeLessThan(0);
    expect(by.worse!.pHolm!).toBeLessThan(0.01);
    expect(by['other-seeds']).toMatchObject({ test: 'unpaired', tasks: 200, referenceTasks: 300, seeds: [7, 8] });
    expect(by['other-seeds']!.pHolm!).toBeGreaterThanOrEqual(by['other-seeds']!.p!);
  });

  it('pairs only the task ids both runs graded', () => {
    const a = { seed: 1, taskIds: ['x', 'y', 'z'], rewards: [1, 1, 1] };
    const b = { seed: 1, taskIds: ['y', 'z', 'w'], rewards: [0, 1, 0] };
    const r = pairedComparison([{ name: 'a', runs: [a] }, { name: 'b', runs: [b] }], 'a', 1);
    expect(r.rows[0]).toMatchObject({ variant: 'b', test: 'paired', tasks: 2, difference: -0.5 });
  });

  it('is the same under the same seed, and another seed moves only the resampled figures', () => {
    const a = pairedComparison(variants, 'full', 1);
    expect(pairedComparison(variants, 'full', 1)).toEqual(a);
    const b = pairedComparison(variants, 'full', 2);
    expect(b.rows.map((x) => x.difference)).toEqual(a.rows.map((x) => x.difference));
    expect(b.rows.map((x) => [x.lo, x.hi])).not.toEqual(a.rows.map((x) => [x.lo, x.hi]));
    // Adding a variant does not move another's figures (each draws from its own stream).
    const fewer = pairedComparison(variants.filter((v) => v.name !== 'same'), 'full', 1);
    expect(fewer.rows.find((x) => x.variant === 'worse')!.lo).toBe(a.rows.find((x) => x.variant === 'worse')!.lo);
  });

  it('refuses a reference that is not a variant, naming the ones there are', () => {
    expect(() => pairedComparison(variants, 'nope', 1)).toThrow('reference "nope" is not one of the variants (full, same, worse, other-seeds)');
  });
});
