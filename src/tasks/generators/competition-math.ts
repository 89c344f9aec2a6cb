import type { Rng } from '../../core/rng';
import type { GeneratedTask, TaskGenerator } from '../niche';
import { algebra } from './algebra';
import { arithmetic } from './arithmetic';
import { add, answerWithDistractors, frac, sub, type Fraction } from './fraction';
import type { GeneratorDescriptor } from './generator';

/**
 * Multi-part competition-style problems, the stand-in for MATH levels 4–5 and AIME. Level 3: one
 * hardest-level problem (a 2×2 system, a quadratic's positive root, or a four-step word problem
 * with fractions). Level L ≥ 4: L − 2 such parts, alternating word problem and equation, whose
 * answers are summed; a slip in any part makes the sum wrong, so each level adds a whole problem's
 * worth of steps. Distractors are the sum with one part replaced by that part's own typical
 * mistake, so wrong answers still agree the way one part's common error does.
 */

const PART_LABELS = ['a', 'b', 'c'];

/** The levels this generator makes. */
export const COMPETITION_LEVELS = [3, 4, 5] as const;

/** Parse a canonical answer (`42`, `-3`, `7/3`) the math generators produce. */
function parseCanonical(text: string): Fraction {
  const [n, d] = text.split('/');
  return frac(Number(n), d === undefined ? 1 : Number(d));
}

/** A competition task with its parts (each a level-3 task of `arithmetic` or `algebra`), for independent checking. */
export function competitionMathWithParts(difficulty: number, rng: Rng): { task: GeneratedTask; parts: GeneratedTask[] } {
  if (!(COMPETITION_LEVELS as readonly number[]).includes(difficulty)) {
    throw new RangeError(`competition-math: unsupported difficulty ${difficulty} (expected 3, 4 or 5)`);
  }
  const count = Math.max(1, difficulty - 2);
  const first = rng.int(2);
  const parts = Array.from({ length: count }, (_, i) => ((first + i) % 2 === 0 ? arithmetic : algebra)(3, rng));
  if (count === 1) return { task: { ...parts[0]!, difficulty }, parts };
  const golds = parts.map((p) => parseCanonical(p.hidden.answer));
  const sum = golds.reduce(add);
  // One part wrong by its own first (most common) mistakes, the others right.
  const mistakes = parts.flatMap((p, i) => p.hidden.distractors.slice(0, 2).map((d) => add(sub(sum, golds[i]!), parseCanonical(d))));
  const { answer, distractors } = answerWithDistractors(sum, mistakes);
  const body = parts.map((p, i) => `Part (${PART_LABELS[i]}).\n${p.question}`).join('\n\n');
  const question = `This problem has ${count} parts. Solve each part, then give the sum of the ${count} answers.\n\n${body}`;
  return { task: { difficulty, question, hidden: { answer, distractors } }, parts };
}

/** Generator for the competition-math niches (`math-hard`, `aime`): multi-part problems, levels 3–5. */
export const competitionMath: TaskGenerator = (difficulty, rng) => competitionMathWithParts(difficulty, rng).task;

/** The `competition-math` generator. */
export const competitionMathGenerator: GeneratorDescriptor = { name: 'competition-math', generate: competitionMath };
