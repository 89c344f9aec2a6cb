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

/**
 * Create a seeded generator (sfc32). The same seed always gives the same sequence.
 * A class, not closures: a run creates a few dozen generators per task (the stream, the simulated
 * model, every fork), and one object with its methods on the prototype is a fraction of the nine
 * closures it replaced. Its methods read `this`: call them on the generator, never detached.
 */
export function createRng(seed: number | string): Rng {
  return new Sfc32(String(seed));
}

class Sfc32 implements Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(private readonly key: string) {
    this.a = hash32(`a:${key}`);
    this.b = hash32(`b:${key}`);
    this.c = hash32(`c:${key}`);
    this.d = hash32(`d:${key}`) | 1;
    for (let i = 0; i < 12; i++) this.next();
  }

  next(): number {
    let { a, b, c, d } = this;
    a >>>= 0; b >>>= 0; c >>>= 0; d >>>= 0;
    const t = (a + b) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    d = (d + 1) | 0;
    const r = (t + d) | 0;
    c = (c + r) | 0;
    this.a = a; this.b = b; this.c = c; this.d = d;
    return (r >>> 0) / 4294967296;
  }

  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  normal(): number {
    return normalFrom(this);
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    return pickFrom(this, items);
  }

  shuffle<T>(items: readonly T[]): T[] {
    return shuffleWith(this, items);
  }

  fork(label: string | number): Rng {
    return new Sfc32(`${this.key}/${label}`);
  }
}

/** A standard normal draw (Box–Muller) from two uniform draws. */
function normalFrom(r: { next(): number }): number {
  const u = Math.max(r.next(), 1e-12);
  const v = r.next();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}

function pickFrom<T>(r: { next(): number }, items: readonly T[]): T {
  if (items.length === 0) throw new Error('rng.pick: empty list');
  return items[Math.floor(r.next() * items.length)] as T;
}

/** A new array, Fisher–Yates shuffled. */
function shuffleWith<T>(r: { next(): number }, items: readonly T[]): T[] {
  const out = items.slice();
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(r.next() * (i + 1));
    const x = out[i] as T;
    out[i] = out[j] as T;
    out[j] = x;
  }
  return out;
}

/** An Rng whose every draw comes from `next` (uniform in [0, 1)); `fork` derives independent streams. */
export function rngFrom(next: () => number, fork: (label: string | number) => Rng): Rng {
  const r = { next };
  return {
    next,
    int: (n) => Math.floor(next() * n),
    normal: () => normalFrom(r),
    chance: (p) => next() < p,
    pick: (items) => pickFrom(r, items),
    shuffle: (items) => shuffleWith(r, items),
    fork,
  };
}
