/** What a Nelder–Mead search asks of its caller: the values of these points, in order. */
export type PointRequest = readonly (readonly number[])[];

/** Settings of the search (defaults: the standard coefficients, a simplex of `step` per axis). */
export interface NelderMeadOptions {
  /** Length of the initial simplex's edges along each axis (default 0.1). */
  readonly step?: number;
  /** Stop when every vertex is within this of the best on every axis (default 1e-3)… */
  readonly xTolerance?: number;
  /** … and the values differ by less than this (default 1e-6). */
  readonly fTolerance?: number;
}

/** The best point found, its value, and why the search ended. */
export interface NelderMeadResult {
  readonly x: readonly number[];
  readonly fx: number;
  readonly converged: boolean;
}

/**
 * Nelder–Mead downhill simplex (Nelder & Mead 1965, with the usual reflection 1, expansion 2,
 * contraction ½ and shrink ½), written as a generator so the caller evaluates points however it
 * likes: it yields the points it needs (the initial simplex and a shrink yield several at once,
 * which the caller may evaluate in parallel) and is resumed with their values. Deterministic: the
 * same values give the same points. The caller stops it at its budget (`return()`), or it returns
 * when the simplex has collapsed.
 */
export function* nelderMead(x0: readonly number[], opts: NelderMeadOptions = {}): Generator<PointRequest, NelderMeadResult, number[]> {
  const step = opts.step ?? 0.1;
  const xTol = opts.xTolerance ?? 1e-3;
  const fTol = opts.fTolerance ?? 1e-6;
  const n = x0.length;
  const start = [x0.slice(), ...x0.map((_, i) => x0.map((v, j) => (j === i ? v + step : v)))];
  const values = yield start;
  let simplex = start.map((x, i) => ({ x, fx: values[i]! }));
  const combine = (a: readonly number[], wa: number, b: readonly number[], wb: number) => a.map((v, i) => wa * v + wb * b[i]!);
  for (;;) {
    // Stable order: ties keep the older vertex first, so equal values never reorder the search.
    simplex = simplex.map((v, i) => ({ v, i })).sort((a, b) => a.v.fx - b.v.fx || a.i - b.i).map(({ v }) => v);
    const best = simplex[0]!;
    const worst = simplex[n]!;
    const spread = Math.max(...simplex.slice(1).map((v) => Math.max(...v.x.map((c, i) => Math.abs(c - best.x[i]!)))));
    if (spread < xTol && Math.abs(worst.fx - best.fx) < fTol) return { x: best.x, fx: best.fx, converged: true };
    if (spread < xTol / 10) return { x: best.x, fx: best.fx, converged: true };
    const centroid = x0.map((_, i) => simplex.slice(0, n).reduce((s, v) => s + v.x[i]!, 0) / n);
    const reflected = combine(centroid, 2, worst.x, -1);
    const [fr] = yield [reflected];
    if (fr! < best.fx) {
      const expanded = combine(centroid, 3, worst.x, -2);
      const [fe] = yield [expanded];
      simplex[n] = fe! < fr! ? { x: expanded, fx: fe! } : { x: reflected, fx: fr! };
      continue;
    }
    if (fr! < simplex[n - 1]!.fx) {
      simplex[n] = { x: reflected, fx: fr! };
      continue;
    }
    // Contract: outside when the reflection beat the worst, inside otherwise.
    const outside = fr! < worst.fx;
    const contracted = outside ? combine(centroid, 1.5, worst.x, -0.5) : combine(centroid, 0.5, worst.x, 0.5);
    const [fc] = yield [contracted];
    if (fc! < (outside ? fr! : worst.fx)) {
      simplex[n] = { x: contracted, fx: fc! };
      continue;
    }
    const shrunk = simplex.slice(1).map((v) => combine(best.x, 0.5, v.x, 0.5));
    const fs = yield shrunk;
    simplex = [best, ...shrunk.map((x, i) => ({ x, fx: fs[i]! }))];
  }
}
