/**
 * The small numerical pieces the calibration's statistics need (docs/calibration.md, "The
 * statistics"): the χ² distribution's upper tail, dense linear algebra on matrices of a dozen rows
 * (solve, inverse, Cholesky), and weighted linear least squares. Hand-written: a dozen-parameter
 * fit needs nothing a numerical library would do better, and these are checked in
 * test/engine/sweep/calibrate/stats.test.ts against known values.
 */

export type Matrix = number[][];

/** ln Γ(x), Lanczos (g = 7, n = 9): about 15 digits for x > 0. */
export function lnGamma(x: number): number {
  const c = [0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059,
    12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7];
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - lnGamma(1 - x);
  const z = x - 1;
  let a = c[0]!;
  const t = z + 7.5;
  for (let i = 1; i < 9; i++) a += c[i]! / (z + i);
  return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(a);
}

/** The regularized upper incomplete gamma Q(a, x) (series below a + 1, continued fraction above; Numerical Recipes §6.2). */
export function gammaQ(a: number, x: number): number {
  if (x <= 0) return 1;
  const lead = -x + a * Math.log(x) - lnGamma(a);
  if (x < a + 1) {
    let sum = 1 / a;
    let term = sum;
    for (let n = 1; n < 500 && Math.abs(term) > Math.abs(sum) * 1e-15; n++) {
      term *= x / (a + n);
      sum += term;
    }
    return Math.max(0, 1 - sum * Math.exp(lead));
  }
  const tiny = 1e-300;
  let b = x + 1 - a;
  let c = 1 / tiny;
  let d = 1 / b;
  let h = d;
  for (let i = 1; i < 500; i++) {
    const an = -i * (i - a);
    b += 2;
    d = an * d + b;
    if (Math.abs(d) < tiny) d = tiny;
    c = b + an / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    const del = d * c;
    h *= del;
    if (Math.abs(del - 1) < 1e-15) break;
  }
  return Math.min(1, Math.exp(lead) * h);
}

/** P(χ²_k ≥ x): the p-value of a χ² statistic on k degrees of freedom (NaN when k < 1). */
export function chi2PValue(x: number, k: number): number {
  if (!(k >= 1)) return Number.NaN;
  return gammaQ(k / 2, x / 2);
}

/** Solve A x = b by Gauss–Jordan elimination with partial pivoting; null when A is singular (to `eps` relative to its largest entry). */
export function solve(a: Matrix, b: readonly number[], eps = 1e-12): number[] | null {
  const inv = invert(a, eps);
  return inv ? inv.map((row) => row.reduce((s, v, j) => s + v * b[j]!, 0)) : null;
}

/** A⁻¹ by Gauss–Jordan elimination with partial pivoting; null when A is singular. */
export function invert(a: Matrix, eps = 1e-12): Matrix | null {
  const n = a.length;
  const scale = Math.max(1e-300, ...a.flat().map(Math.abs));
  const m = a.map((row, i) => [...row, ...Array.from({ length: n }, (_, j) => (i === j ? 1 : 0))]);
  for (let col = 0; col < n; col++) {
    let pivot = col;
    for (let r = col + 1; r < n; r++) if (Math.abs(m[r]![col]!) > Math.abs(m[pivot]![col]!)) pivot = r;
    if (Math.abs(m[pivot]![col]!) <= eps * scale) return null;
    [m[col], m[pivot]] = [m[pivot]!, m[col]!];
    const p = m[col]![col]!;
    for (let j = 0; j < 2 * n; j++) m[col]![j]! /= p;
    for (let r = 0; r < n; r++) {
      if (r === col) continue;
      const f = m[r]![col]!;
      if (f !== 0) for (let j = 0; j < 2 * n; j++) m[r]![j]! -= f * m[col]![j]!;
    }
  }
  return m.map((row) => row.slice(n));
}

/** The lower Cholesky factor L of a symmetric positive semi-definite A (L Lᵀ = A); a non-positive pivot is taken as 0. */
export function cholesky(a: Matrix): Matrix {
  const n = a.length;
  const l: Matrix = Array.from({ length: n }, () => new Array<number>(n).fill(0));
  for (let i = 0; i < n; i++) {
    for (let j = 0; j <= i; j++) {
      let s = a[i]![j]!;
      for (let k = 0; k < j; k++) s -= l[i]![k]! * l[j]![k]!;
      if (i === j) l[i]![i] = s > 0 ? Math.sqrt(s) : 0;
      else l[i]![j] = l[j]![j]! > 0 ? s / l[j]![j]! : 0;
    }
  }
  return l;
}

/** Aᵀ W A for a design A (rows) and row weights w. */
export function gram(rows: readonly (readonly number[])[], w: readonly number[]): Matrix {
  const k = rows[0]?.length ?? 0;
  const g: Matrix = Array.from({ length: k }, () => new Array<number>(k).fill(0));
  rows.forEach((r, n) => {
    for (let i = 0; i < k; i++) for (let j = 0; j < k; j++) g[i]![j]! += w[n]! * r[i]! * r[j]!;
  });
  return g;
}

/** Weighted least squares: β minimizing Σ w (y − Xβ)², or null when X does not determine β. */
export function leastSquares(x: readonly (readonly number[])[], y: readonly number[], w: readonly number[]): number[] | null {
  const g = gram(x, w);
  const k = g.length;
  const rhs = Array.from({ length: k }, (_, i) => x.reduce((s, r, n) => s + w[n]! * r[i]! * y[n]!, 0));
  return solve(g, rhs, 1e-10);
}

/** Matrix–vector product. */
export function mulVec(a: Matrix, v: readonly number[]): number[] {
  return a.map((row) => row.reduce((s, x, j) => s + x * v[j]!, 0));
}

/** vᵀ A v. */
export function quadForm(a: Matrix, v: readonly number[]): number {
  return mulVec(a, v).reduce((s, x, i) => s + x * v[i]!, 0);
}

/**
 * Eigen decomposition of a symmetric matrix by cyclic Jacobi rotations: `values[i]` with its unit
 * eigenvector `vectors[i]`, largest first. Exact to rounding for the dozen-row matrices here, and
 * deterministic (no pivoting on ties).
 */
export function symmetricEigen(a: Matrix): { values: number[]; vectors: number[][] } {
  const n = a.length;
  const m = a.map((row) => [...row]);
  const v: Matrix = Array.from({ length: n }, (_, i) => Array.from({ length: n }, (_, j) => (i === j ? 1 : 0)));
  for (let sweep = 0; sweep < 100; sweep++) {
    let off = 0;
    for (let p = 0; p < n; p++) for (let q = p + 1; q < n; q++) off += m[p]![q]! ** 2;
    if (off <= 1e-30 * Math.max(1e-300, ...m.map((row, i) => row[i]! ** 2))) break;
    for (let p = 0; p < n; p++) {
      for (let q = p + 1; q < n; q++) {
        const apq = m[p]![q]!;
        if (apq === 0) continue;
        const theta = (m[q]![q]! - m[p]![p]!) / (2 * apq);
        const t = Math.sign(theta || 1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
        const c = 1 / Math.sqrt(t * t + 1);
        const s = t * c;
        for (let k = 0; k < n; k++) {
          const mkp = m[k]![p]!;
          const mkq = m[k]![q]!;
          m[k]![p] = c * mkp - s * mkq;
          m[k]![q] = s * mkp + c * mkq;
        }
        for (let k = 0; k < n; k++) {
          const mpk = m[p]![k]!;
          const mqk = m[q]![k]!;
          m[p]![k] = c * mpk - s * mqk;
          m[q]![k] = s * mpk + c * mqk;
        }
        for (let k = 0; k < n; k++) {
          const vkp = v[k]![p]!;
          const vkq = v[k]![q]!;
          v[k]![p] = c * vkp - s * vkq;
          v[k]![q] = s * vkp + c * vkq;
        }
      }
    }
  }
  const order = Array.from({ length: n }, (_, i) => i).sort((i, j) => m[j]![j]! - m[i]![i]! || i - j);
  return { values: order.map((i) => m[i]![i]!), vectors: order.map((i) => v.map((row) => row[i]!)) };
}

/** Σ v vᵀ / λ over the eigenpairs whose λ is at least `floor`: the inverse on the subspace they span (the Moore–Penrose inverse when `floor` only excludes zeros). */
export function pseudoInverse(eigen: { values: readonly number[]; vectors: readonly (readonly number[])[] }, floor: number): Matrix {
  const n = eigen.vectors.length;
  const out: Matrix = Array.from({ length: n }, () => new Array<number>(n).fill(0));
  eigen.values.forEach((l, e) => {
    if (!(l >= floor) || l <= 0) return;
    const u = eigen.vectors[e]!;
    for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) out[i]![j]! += (u[i]! * u[j]!) / l;
  });
  return out;
}
