import { ownKnowledge } from '../prompt-reader';
import type { Responder } from './responder';

const ORDINALS = ['first', 'second', 'third', 'fourth', 'fifth', 'sixth'];

/**
 * Answers a decomposition prompt with `{"parts": [...]}`: one sub-problem per requested part,
 * the k-th standing for the k-th of the task's required strategies (described by what it does,
 * never by its name — the decomposer does not have to know the strategy to see the step).
 */
export const decomposeResponder: Responder = ({ prompt, entry, world, params, rng }) => {
  const n = Number(/exactly (\d+) sub-problems/.exec(prompt.sections.get('decompose') ?? '')?.[1] ?? 2);
  if (!entry || rng.chance(params.malformed)) return { text: 'We should split this up somehow.', lengthClass: 'json' };
  const required = world.required(entry.task.niche, entry.task.id, entry.task.difficulty, entry.task.question);
  const parts = Array.from({ length: Math.max(1, n) }, (_, i) =>
    `Handle the ${ORDINALS[i] ?? `${i + 1}th`} key step: ${required[i % required.length]!.gloss}.`);
  return { text: JSON.stringify({ parts }), lengthClass: 'json' };
};

/**
 * Answers a sub-problem prompt. Sub-problem k needs the task's k-th required strategy: a member
 * whose own knowledge names it solves the part with it and says so (so the synthesizer's prompt
 * carries it); otherwise it returns a plain partial result.
 */
export const partResponder: Responder = ({ prompt, entry, world }) => {
  if (!entry) return { text: 'Partial result: unclear.', lengthClass: 'qa' };
  const k = Number(/Sub-problem (\d+) of/.exec(prompt.sections.get('sub-problem') ?? '')?.[1] ?? 1);
  const required = world.required(entry.task.niche, entry.task.id, entry.task.difficulty, entry.task.question);
  const strategy = required[(k - 1) % required.length]!;
  const knows = world.mentioned(ownKnowledge(prompt)).some((s) => s.phrase === strategy.phrase);
  const text = knows
    ? `Using the ${strategy.phrase}: ${strategy.gloss}. Partial result established for this step.`
    : 'Worked through this step directly; partial result established.';
  return { text, lengthClass: 'qa' };
};
