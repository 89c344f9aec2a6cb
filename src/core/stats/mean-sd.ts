/** Mean and sample standard deviation. */
export interface Stat {
  readonly mean: number;
  readonly sd: number;
}

/** Mean and sample sd (0 for one value). */
export function stat(xs: readonly number[]): Stat {
  const n = xs.length;
  const mean = n ? xs.reduce((a, b) => a + b, 0) / n : 0;
  const sd = n > 1 ? Math.sqrt(xs.reduce((a, x) => a + (x - mean) ** 2, 0) / (n - 1)) : 0;
  const r = (x: number) => Math.round(x * 1e4) / 1e4;
  return { mean: r(mean), sd: r(sd) };
}
