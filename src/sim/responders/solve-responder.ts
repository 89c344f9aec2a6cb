import { getDomain, type ReplyFormat } from '../../tasks/domains';
import type { Rng } from '../../core/rng';
import type { SimParams } from '../sim-params';
import type { SimWorld } from '../sim-world';
import { ownKnowledge, type ReadPrompt } from '../prompt-reader';
import type { Responder, SimReply } from './responder';
import type { SimNiche, SimTask } from '../side-channel';
import { misleadPenalty } from './mislead';
import { specializationBonus } from './specialization';
import { personaMatches } from './persona-match';
import { followedSteps } from './decompose-responder';

export { personaMatches };

/** The terms of one attempt's success logit, for inspection and tests. */
export interface SuccessBreakdown {
  readonly personaMatch: boolean;
  readonly required: number;
  /** Required strategies covered: held ones count 1, ones only read in others' text `peerUptake`. */
  readonly covered: number;
  readonly subdomainKnown: number;
  readonly crossKnown: number;
  readonly offNiche: number;
  readonly logit: number;
  readonly probability: number;
}

const sigmoid = (x: number) => 1 / (1 + Math.exp(-x));

/**
 * Success probability of one attempt at `task` given everything in the prompt text. `heldText`
 * is the part of the prompt the attempt's author holds (persona, own experience, steps done for
 * it); a required strategy named only elsewhere (read in a teammate's answer or a reviewer's
 * feedback) counts `peerUptake`. Without `heldText` the whole prompt is held.
 */
export function successBreakdown(
  world: SimWorld, params: SimParams, persona: string, promptText: string, task: SimTask, spec: SimNiche, bonus = 0,
  heldText: string = promptText,
): SuccessBreakdown {
  const required = world.required(task.niche, task.id, task.difficulty, task.question);
  const mentioned = world.mentioned(promptText);
  const names = new Set(mentioned.map((s) => s.phrase));
  const held = heldText === promptText ? names : new Set(world.mentioned(heldText).map((s) => s.phrase));
  const covered = required.reduce((n, s) => n + (held.has(s.phrase) ? 1 : names.has(s.phrase) ? params.peerUptake : 0), 0);
  const subdomainKnown = mentioned.filter((s) => s.scope === `domain:${task.domain}`).length;
  const crossKnown = mentioned.filter((s) => s.scope === 'cross').length;
  const offNiche = mentioned.filter((s) => s.scope !== task.niche && !s.scope.startsWith('domain:') && s.scope !== 'cross').length;
  const match = personaMatches(persona, spec);
  const logit = params.base
    + (match ? params.personaMatch : 0)
    + params.coverage * (covered / required.length)
    + params.subdomain * Math.min(1, subdomainKnown / 2)
    + params.crossDomain * Math.min(1, crossKnown / 2)
    - params.difficulty * task.difficulty
    - params.dilution * Math.min(params.dilutionCap, offNiche)
    + bonus;
  return {
    personaMatch: match, required: required.length, covered, subdomainKnown, crossKnown, offNiche,
    logit, probability: sigmoid(logit),
  };
}

/** A wrong answer: usually a shared distractor (so wrong answers can agree), sometimes a fresh slip. */
export function wrongAnswer(task: SimTask, params: SimParams, rng: Rng): string {
  const ds = task.hidden.distractors;
  const numeric = Number(task.hidden.answer);
  const format = replyFormat(task);
  if (ds.length === 0 || (format.numeric && Number.isFinite(numeric) && rng.chance(params.uniqueMistake))) {
    if (format.numeric && Number.isFinite(numeric)) return String(numeric + (rng.int(40) + 3) * (rng.chance(0.5) ? 1 : -1));
    if (ds.length === 0) return format.blank;
  }
  const weights = ds.map((_, i) => params.distractorSkew ** i);
  let u = rng.next() * weights.reduce((a, b) => a + b, 0);
  for (let i = 0; i < ds.length; i++) {
    u -= weights[i]!;
    if (u <= 0) return ds[i]!;
  }
  return ds[ds.length - 1]!;
}

/** How a right answer appears in the simulator's own replies (used to recognise it in teammates' text). */
export function goldMarker(task: SimTask): string {
  return replyFormat(task).marker(task.hidden.answer);
}

/** The task's required strategies that `text` names, as a sentence for a reply ('' when none). */
export function methodLine(world: SimWorld, task: SimTask, text: string): string {
  const names = new Set(world.mentioned(text).map((s) => s.phrase));
  const used = world.required(task.niche, task.id, task.difficulty, task.question).filter((s) => names.has(s.phrase));
  return used.length ? `I apply the ${used.map((s) => s.phrase).join(' and the ')}.\n` : '';
}

function render(task: SimTask, answer: string, params: SimParams, rng: Rng, method: string): SimReply {
  const think = rng.chance(params.thinkBlock) ? '<think>\nLet me look at what is given and what is asked.\n</think>\n' : '';
  if (rng.chance(params.malformed)) {
    return { text: `${think}I am not sure how to approach this one.`, lengthClass: task.domain };
  }
  return { text: `${think}${method}${replyFormat(task).write(answer, { applied: method !== '' })}`, lengthClass: task.domain };
}

/** The answer one of the simulator's own replies gives, in the task's domain format (null: none). */
function answerIn(task: SimTask, text: string): string | null {
  return replyFormat(task).read(text);
}

/**
 * Whether a reader can check a reply by reading it: a math reply shows its derivation, a QA reply
 * that quotes its evidence can be held against the passage; code cannot be checked by reading
 * (a bug hides from reading), only by running tests.
 */
export function showsCheckableWork(task: SimTask, block: string): boolean {
  return replyFormat(task).checkable(block);
}

/** How replies in the task's domain give their answer (the domain's descriptor, src/tasks/domains/). */
function replyFormat(task: SimTask): ReplyFormat {
  return getDomain(task.domain).replies;
}

/** The teammates' blocks of a debate revision prompt ("Teammate k:" blocks). */
function teammateBlocks(others: string): string[] {
  return others.split(/^Teammate \d+:\n/m).slice(1);
}

/**
 * True when the prompt lets the reviser recognise a teammate's right answer: some teammate gives
 * it with work the reviser can check, or public-test results in the prompt show all tests passing.
 */
export function recognisable(task: SimTask, prompt: ReadPrompt): boolean {
  const others = prompt.sections.get('other answers');
  if (others === undefined) return false;
  const tests = prompt.sections.get('public test results');
  const testsPass = tests !== undefined && !/FAILED|ERROR|No Python function/.test(tests);
  return teammateBlocks(others).some((b) => answerIn(task, b) === task.hidden.answer && (testsPass || showsCheckableWork(task, b)));
}

/** Teammates' answers in a debate revision prompt ("Teammate k:" blocks), when they all give the same one. */
export function unanimousTeammates(task: SimTask, others: string): string | null {
  const answers = teammateBlocks(others).map((b) => answerIn(task, b));
  if (answers.length < 2 || answers.some((a) => a === null)) return null;
  return answers.every((a) => a === answers[0]) ? answers[0]! : null;
}

/** True when the prompt is a revision that shows the reviser's previous answer failing public tests. */
export function failingTestsShown(prompt: ReadPrompt): boolean {
  const tests = prompt.sections.get('public test results');
  return prompt.sections.has('your previous answer') && tests !== undefined && /FAILED|ERROR/.test(tests);
}

/**
 * What the author of a solve-like prompt holds: persona, own experience, and sub-problem steps done
 * for it (with a strategy named, or by following the plan: `stepUptake`).
 */
export function heldKnowledge(prompt: ReadPrompt, world: SimWorld, task: SimTask): string {
  const solutions = prompt.sections.get('sub-problem solutions') ?? '';
  const held = `${ownKnowledge(prompt)}\n${solutions}`;
  const followed = followedSteps(world, solutions, task);
  return followed ? `${held}\n${followed}` : held;
}

/**
 * Answers a solve-like prompt (solve, debate or feedback revision, synthesis): right with the
 * probability everything in the prompt earns, wrong otherwise. Strategies only read in others'
 * text count `peerUptake`; sub-problem steps solved with a strategy count in full. A revising
 * member that can check a teammate's right answer (`recognisable`) gets the `recognize` bonus; one
 * whose teammates all give the same wrong answer is pulled towards it (`conformity`) and, if
 * wrong, adopts it. A reviser shown its previous answer failing public tests gets `testFeedback`. The reply names the task's strategies the prompt carried, so teammates who
 * read it can pick them up.
 */
export const solveResponder: Responder = ({ prompt, entry, world, params, rng }) => {
  if (!entry) return { text: 'I cannot tell what is being asked.', lengthClass: 'qa' };
  const { task, spec } = entry;
  const others = prompt.sections.get('other answers');
  const herd = others === undefined ? null : unanimousTeammates(task, others);
  const conform = herd !== null && herd !== task.hidden.answer;
  const bonus = (recognisable(task, prompt) ? params.recognize : 0) + (failingTestsShown(prompt) ? params.testFeedback : 0)
    - (conform ? params.conformity : 0) - misleadPenalty(world, params, prompt, task, spec, rng)
    + specializationBonus(world, params, prompt, task, spec);
  const b = successBreakdown(world, params, prompt.persona, prompt.full, task, spec, bonus, heldKnowledge(prompt, world, task));
  const answer = rng.chance(b.probability) ? task.hidden.answer : conform ? herd! : wrongAnswer(task, params, rng);
  return render(task, answer, params, rng, methodLine(world, task, prompt.full));
};
