import { ownKnowledge } from '../prompt-reader';
import type { Responder } from './responder';
import type { SimWorld } from '../sim-world';
import type { SimTask } from '../side-channel';

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

/** How a member that follows a step it was handed, without holding its strategy, reports it (no strategy name). */
const FOLLOWED = 'Following the plan: ';

/**
 * Answers a sub-problem prompt. Sub-problem k needs the task's k-th required strategy: a member
 * whose own knowledge names it solves the part with it and says so (so the synthesizer's prompt
 * carries it). A member that does not hold it but whose sub-problem states the step (the
 * strategy's gloss, as the decomposer wrote it) follows it with chance `stepUptake`, as an LLM
 * follows a plan it is handed: it reports the step done by what it does, never by a name it does
 * not know. Otherwise it returns a plain partial result.
 */
export const partResponder: Responder = ({ prompt, entry, world, params, rng }) => {
  if (!entry) return { text: 'Partial result: unclear.', lengthClass: 'qa' };
  const section = prompt.sections.get('sub-problem') ?? '';
  const k = Number(/Sub-problem (\d+) of/.exec(section)?.[1] ?? 1);
  const required = world.required(entry.task.niche, entry.task.id, entry.task.difficulty, entry.task.question);
  const strategy = required[(k - 1) % required.length]!;
  const knows = world.mentioned(ownKnowledge(prompt)).some((s) => s.phrase === strategy.phrase);
  // The draw only when the parameter is on and the step is in the prompt: worlds without it draw as before.
  const follows = !knows && params.stepUptake > 0 && section.includes(strategy.gloss) && rng.chance(params.stepUptake);
  const text = knows
    ? `Using the ${strategy.phrase}: ${strategy.gloss}. Partial result established for this step.`
    : follows
      ? `${FOLLOWED}${strategy.gloss}. Partial result established for this step.`
      : 'Worked through this step directly; partial result established.';
  return { text, lengthClass: 'qa' };
};

/**
 * The task's required strategies whose step a synthesis prompt's sub-problem solutions show done by
 * following the plan (`stepUptake`): a step solved counts in full for the synthesizer, as one solved
 * with a held strategy does. Read from the prompt's lines; a gloss several required strategies share
 * covers each of them. Their phrases, for the held-knowledge count only (never written in a reply).
 */
export function followedSteps(world: SimWorld, solutions: string, task: SimTask): string {
  const lines = solutions.split('\n').filter((l) => l.startsWith(FOLLOWED));
  if (lines.length === 0) return '';
  const required = world.required(task.niche, task.id, task.difficulty, task.question);
  return required.filter((s) => lines.some((l) => l.includes(s.gloss))).map((s) => s.phrase).join('\n');
}
