import { hash32 } from './hash';

/**
 * Seeded randomness. Everything that chooses takes an `Rng`; nothing calls Math.random().
 * Streams are derived by label (`rng.fork('sim')`), so adding a new consumer never shifts
 * the draws another consumer sees.
 */
export interface Rng {
  /** Uniform in [0, 1). */
  next(): number;
  /** Uniform integer in [0, n). */
  int(n: number): number;
  /** Standard normal draw. */
  normal(): number;
  /** True with probability p. */
  chance(p: number): boolean;
  /** Uniformly chosen element; throws on an empty list. */
  pick<T>(items: readonly T[]): T;
  /** New array, Fisher–Yates shuffled. */
  shuffle<T>(items: readonly T[]): T[];
  /** An independent stream derived from this one's seed and a label (does not advance this one). */
  fork(label: string | number): Rng;
}

/** Create a seeded generator (sfc32). The same seed always gives the same sequence. */
export function createRng(seed: number | string): Rng {
  const key = String(seed);
  let a = hash32(`a:${key}`);
  let b = hash32(`b:${key}`);
  let c = hash32(`c:${key}`);
  let d = hash32(`d:${key}`) | 1;
  const next = (): number => {
    a >>>= 0; b >>>= 0; c >>>= 0; d >>>= 0;
    const t = (a + b) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    d = (d + 1) | 0;
    const r = (t + d) | 0;
    c = (c + r) | 0;
    return (r >>> 0) / 4294967296;
  };
  for (let i = 0; i < 12; i++) next();
  return rngFrom(next, (label) => createRng(`${key}/${label}`));
}

/** An Rng whose every draw comes from `next` (uniform in [0, 1)); `fork` derives independent streams. */
export function rngFrom(next: () => number, fork: (label: string | number) => Rng): Rng {
  return {
    next,
    int: (n) => Math.floor(next() * n),
    normal: () => {
      const u = Math.max(next(), 1e-12);
      const v = next();
      return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
    },
    chance: (p) => next() < p,
    pick: (items) => {
      if (items.length === 0) throw new Error('rng.pick: empty list');
      return items[Math.floor(next() * items.length)] as (typeof items)[number];
    },
    shuffle: (items) => {
      const out = items.slice();
      for (let i = out.length - 1; i > 0; i--) {
        const j = Math.floor(next() * (i + 1));
        [out[i], out[j]] = [out[j] as (typeof out)[number], out[i] as (typeof out)[number]];
      }
      return out;
    },
    fork,
  };
}
