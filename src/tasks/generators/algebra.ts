import type { Rng } from '../../core/rng';
import type { TaskGenerator } from '../niche';
import { answerWithDistractors, frac, type Fraction } from './fraction';
import type { GeneratorDescriptor } from './generator';

/**
 * Solve-for-x problems. Level 1: one linear equation with an integer root; level 2: x on both
 * sides or inside a fraction (rational roots such as 7/3); level 3: a 2×2 linear system or a
 * quadratic asked for its positive root. Equations are written so mathjs can parse them
 * (implicit multiplication `3x`), which lets tests substitute the answer back.
 */

/** An equation set with its gold root and typical wrong roots. */
interface Problem {
  readonly prompt: string;
  readonly equations: readonly string[];
  readonly answer: Fraction;
  readonly mistakes: readonly Fraction[];
}

const int = (rng: Rng, lo: number, hi: number): number => lo + rng.int(hi - lo + 1);
const nonZero = (rng: Rng, lo: number, hi: number): number => {
  const v = int(rng, lo, hi - 1);
  return v >= 0 ? v + 1 : v;
};
const f = (n: number, d = 1): Fraction => frac(n, d);
/** Safe quotient for mistakes: a wrong formula may divide by zero, which just drops the candidate. */
const q = (n: number, d: number): Fraction[] => (d === 0 ? [] : [frac(n, d)]);

/** Render `c·v` terms as a readable polynomial: `2x^2 - x + 3`, skipping zero terms. */
function poly(terms: readonly (readonly [number, string])[]): string {
  let out = '';
  for (const [c, v] of terms) {
    if (c === 0) continue;
    const mag = Math.abs(c) === 1 && v !== '' ? '' : String(Math.abs(c));
    const sign = c < 0 ? (out === '' ? '-' : ' - ') : out === '' ? '' : ' + ';
    out += `${sign}${mag}${v}`;
  }
  return out === '' ? '0' : out;
}

// ---- level 1 ----

function linear(rng: Rng): Problem {
  const a = int(rng, 2, 9);
  const x = int(rng, -10, 15);
  const b = nonZero(rng, -20, 20);
  const c = a * x + b;
  return {
    prompt: 'Solve for x:',
    equations: [`${poly([[a, 'x'], [b, '']])} = ${c}`],
    answer: f(x),
    mistakes: [f(c + b, a), f(c - b), f(c - a * b, a), f(-x)],
  };
}

function bracket(rng: Rng): Problem {
  const a = int(rng, 2, 7);
  const x = int(rng, -8, 12);
  const b = nonZero(rng, -9, 9);
  const c = a * (x + b);
  return {
    prompt: 'Solve for x:',
    equations: [`${a}(${poly([[1, 'x'], [b, '']])}) = ${c}`],
    answer: f(x),
    mistakes: [f(c / a + b), f(c - b, a), f(c - a * b), f(-x)],
  };
}

// ---- level 2 ----

function bothSides(rng: Rng): Problem {
  const a = int(rng, 2, 9);
  let c = int(rng, 1, 8);
  if (c === a) c = a + 1;
  const b = nonZero(rng, -15, 15);
  let d = nonZero(rng, -15, 15);
  if (d === b) d = b + 3;
  return {
    prompt: 'Solve for x:',
    equations: [`${poly([[a, 'x'], [b, '']])} = ${poly([[c, 'x'], [d, '']])}`],
    answer: f(d - b, a - c),
    mistakes: [...q(d + b, a - c), ...q(d - b, a + c), ...q(b - d, a - c), ...q(d - b, a)],
  };
}

function overC(rng: Rng): Problem {
  const a = int(rng, 2, 6);
  const b = nonZero(rng, -12, 12);
  const c = int(rng, 2, 5);
  const d = nonZero(rng, -8, 9);
  return {
    prompt: 'Solve for x:',
    equations: [`(${poly([[a, 'x'], [b, '']])})/${c} = ${d}`],
    answer: f(c * d - b, a),
    mistakes: [f(d - b, a), f(c * d + b, a), f(c * d - b), f(d * c - b * c, a)],
  };
}

function twoFractions(rng: Rng): Problem {
  const a = int(rng, 2, 6);
  let b = int(rng, 2, 7);
  if (b === a) b = a + 1;
  const c = nonZero(rng, -6, 8);
  return {
    prompt: 'Solve for x:',
    equations: [`x/${a} + x/${b} = ${c}`],
    answer: f(c * a * b, a + b),
    mistakes: [f(c * (a + b)), f(c, a + b), f(c * a * b, a * b + 1), f(c * (a + b), a * b)],
  };
}

// ---- level 3 ----

function system(rng: Rng): Problem {
  const x = int(rng, -6, 9);
  let y = int(rng, -6, 9);
  if (y === x) y = x + 2;
  let a1 = 0, b1 = 0, a2 = 0, b2 = 0;
  // Redraw until the system has exactly one solution.
  while (a1 * b2 - a2 * b1 === 0) {
    a1 = nonZero(rng, -5, 5); b1 = nonZero(rng, -5, 5);
    a2 = nonZero(rng, -5, 5); b2 = nonZero(rng, -5, 5);
  }
  const c1 = a1 * x + b1 * y;
  const c2 = a2 * x + b2 * y;
  const det = a1 * b2 - a2 * b1;
  return {
    prompt: 'Solve the system of equations for x:',
    equations: [`${poly([[a1, 'x'], [b1, 'y']])} = ${c1}`, `${poly([[a2, 'x'], [b2, 'y']])} = ${c2}`],
    answer: f(x),
    mistakes: [f(y), ...q(c1 * b2 + c2 * b1, det), ...q(c1, a1), f(-x), ...q(c1 * b2 - c2 * b1, a1 * b2 + a2 * b1)],
  };
}

function quadratic(rng: Rng): Problem {
  // (p·x − r)(x + s) = 0 has roots r/p > 0 and −s < 0, so "the positive solution" is unique.
  const p = rng.pick([1, 1, 2, 3]);
  const r = int(rng, 1, 12);
  let s = int(rng, 1, 9);
  if (s * p === r) s += 1;
  return {
    prompt: 'Find the positive solution of:',
    equations: [`${poly([[p, 'x^2'], [p * s - r, 'x'], [-r * s, '']])} = 0`],
    answer: f(r, p),
    mistakes: [f(s), f(-r, p), f(r), f(r * s, p), f(r + s, p)],
  };
}

const BY_LEVEL: Record<number, readonly ((rng: Rng) => Problem)[]> = {
  1: [linear, bracket],
  2: [bothSides, overC, twoFractions],
  3: [system, quadratic],
};

/** Generator for the `algebra` niche: equations in x whose answers are integers or fractions. */
export const algebra: TaskGenerator = (difficulty, rng) => {
  const pool = BY_LEVEL[difficulty];
  if (!pool) throw new RangeError(`algebra: unsupported difficulty ${difficulty} (expected 1, 2 or 3)`);
  const p = rng.pick(pool)(rng);
  const { answer, distractors } = answerWithDistractors(p.answer, p.mistakes);
  const question = `${p.prompt}\n\n${p.equations.map((e) => `    ${e}`).join('\n')}`;
  return { difficulty, question, hidden: { answer, distractors } };
};

/** The `algebra` generator. */
export const algebraGenerator: GeneratorDescriptor = { name: 'algebra', generate: algebra };
