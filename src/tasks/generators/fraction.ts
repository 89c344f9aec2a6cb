/** Exact small-rational helpers shared by the math generators, so answers never suffer float drift. */

/** Greatest common divisor of two integers; always non-negative. */
export function gcd(a: number, b: number): number {
  let x = Math.abs(a);
  let y = Math.abs(b);
  while (y !== 0) [x, y] = [y, x % y];
  return x;
}

/** A rational number as integer numerator and positive denominator. */
export interface Fraction {
  readonly num: number;
  readonly den: number;
}

/** Build a reduced fraction; throws on a zero or non-integer denominator. */
export function frac(num: number, den = 1): Fraction {
  if (den === 0 || !Number.isInteger(num) || !Number.isInteger(den)) {
    throw new Error(`frac: invalid fraction ${num}/${den}`);
  }
  const g = gcd(num, den) || 1;
  const sign = den < 0 ? -1 : 1;
  // `+ 0` turns -0 into 0 so "0" never renders as "-0".
  return { num: (sign * num) / g + 0, den: (sign * den) / g };
}

/** Sum of two fractions. */
export const add = (a: Fraction, b: Fraction): Fraction => frac(a.num * b.den + b.num * a.den, a.den * b.den);
/** Difference a − b. */
export const sub = (a: Fraction, b: Fraction): Fraction => frac(a.num * b.den - b.num * a.den, a.den * b.den);
/** Product of two fractions. */
export const mul = (a: Fraction, b: Fraction): Fraction => frac(a.num * b.num, a.den * b.den);
/** Quotient a / b; throws when b is zero. */
export const div = (a: Fraction, b: Fraction): Fraction => frac(a.num * b.den, a.den * b.num);

/** Canonical answer text: `42`, `-3`, `7/3` (reduced, sign on the numerator). */
export function formatFraction(f: Fraction): string {
  return f.den === 1 ? String(f.num) : `${f.num}/${f.den}`;
}

/**
 * Canonical answer plus 3–5 distinct wrong answers. Candidates equal to the answer or to each
 * other are dropped (a "mistake" can coincide with the truth for some draws), and small offsets
 * top the list up so every task still ships at least three distractors.
 */
export function answerWithDistractors(
  answer: Fraction,
  mistakes: readonly Fraction[],
): { answer: string; distractors: string[] } {
  const gold = formatFraction(answer);
  const out: string[] = [];
  const offsets = [1, -1, 2, -2].map((d) => add(answer, frac(d)));
  const take = (f: Fraction, limit: number): void => {
    const text = formatFraction(f);
    if (text !== gold && !out.includes(text) && out.length < limit) out.push(text);
  };
  for (const f of mistakes) take(f, 5);
  for (const f of offsets) take(f, 3);
  return { answer: gold, distractors: out };
}
