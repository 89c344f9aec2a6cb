import type { NicheSpec } from '../../../tasks/niche';
import type { Task } from '../../../tasks/task';
import type { Rng } from '../../../engine/rng';
import type { SimParams } from '../sim-params';
import type { SimWorld } from '../sim-world';
import type { Responder, SimReply } from './responder';

/** The terms of one attempt's success logit, for inspection and tests. */
export interface SuccessBreakdown {
  readonly personaMatch: boolean;
  readonly required: number;
  readonly covered: number;
  readonly subdomainKnown: number;
  readonly crossKnown: number;
  readonly offNiche: number;
  readonly logit: number;
  readonly probability: number;
}

const sigmoid = (x: number) => 1 / (1 + Math.exp(-x));

/** True when the persona names one of the niche's keywords as a word. */
export function personaMatches(persona: string, spec: NicheSpec): boolean {
  const lower = persona.toLowerCase();
  return spec.keywords.some((k) => new RegExp(`\\b${k.toLowerCase().replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\b`).test(lower));
}

/** Success probability of one attempt at `task` given everything in the prompt text. */
export function successBreakdown(
  world: SimWorld, params: SimParams, persona: string, promptText: string, task: Task, spec: NicheSpec, bonus = 0,
): SuccessBreakdown {
  const required = world.required(task.niche, task.id, task.difficulty);
  const mentioned = world.mentioned(promptText);
  const names = new Set(mentioned.map((s) => s.phrase));
  const covered = required.filter((s) => names.has(s.phrase)).length;
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
export function wrongAnswer(task: Task, params: SimParams, rng: Rng): string {
  const ds = task.hidden.distractors;
  const numeric = Number(task.hidden.answer);
  if (ds.length === 0 || (task.domain === 'math' && Number.isFinite(numeric) && rng.chance(params.uniqueMistake))) {
    if (task.domain === 'math' && Number.isFinite(numeric)) return String(numeric + (rng.int(40) + 3) * (rng.chance(0.5) ? 1 : -1));
    if (ds.length === 0) return task.domain === 'code' ? 'def solution(*args):\n    return None' : 'unknown';
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
export function goldMarker(task: Task): string {
  switch (task.domain) {
    case 'math': return `\\boxed{${task.hidden.answer}}`;
    case 'code': return task.hidden.answer;
    case 'qa': return `Answer: ${task.hidden.answer}`;
  }
}

/** The task's required strategies that `text` names, as a sentence for a reply ('' when none). */
export function methodLine(world: SimWorld, task: Task, text: string): string {
  const names = new Set(world.mentioned(text).map((s) => s.phrase));
  const used = world.required(task.niche, task.id, task.difficulty).filter((s) => names.has(s.phrase));
  return used.length ? `I apply the ${used.map((s) => s.phrase).join(' and the ')}.\n` : '';
}

function render(task: Task, answer: string, params: SimParams, rng: Rng, method: string): SimReply {
  const think = rng.chance(params.thinkBlock) ? '<think>\nLet me look at what is given and what is asked.\n</think>\n' : '';
  if (rng.chance(params.malformed)) {
    return { text: `${think}I am not sure how to approach this one.`, lengthClass: task.domain };
  }
  switch (task.domain) {
    case 'math':
      return { text: `${think}${method}Working through the steps carefully.\nSo the final answer is \\boxed{${answer}}.`, lengthClass: 'math' };
    case 'code':
      return { text: `${think}${method}Here is the function.\n\n\`\`\`python\n${answer}\n\`\`\``, lengthClass: 'code' };
    case 'qa':
      return { text: `${think}${method}The passage states it directly.\nAnswer: ${answer}`, lengthClass: 'qa' };
  }
}

/** The answer one of the simulator's own replies gives, in the task's domain format (null: none). */
function answerIn(task: Task, text: string): string | null {
  switch (task.domain) {
    case 'math': return [...text.matchAll(/\\boxed\{([^}]*)\}/g)].at(-1)?.[1] ?? null;
    case 'code': return /```python\n([\s\S]*?)\n```/.exec(text)?.[1] ?? null;
    case 'qa': return /^Answer:\s*(.+)$/m.exec(text)?.[1]?.trim() ?? null;
  }
}

/** Teammates' answers in a debate revision prompt ("Teammate k:" blocks), when they all give the same one. */
export function unanimousTeammates(task: Task, others: string): string | null {
  const answers = others.split(/^Teammate \d+:\n/m).slice(1).map((b) => answerIn(task, b));
  if (answers.length < 2 || answers.some((a) => a === null)) return null;
  return answers.every((a) => a === answers[0]) ? answers[0]! : null;
}

/**
 * Answers a solve-like prompt (solve, debate or feedback revision, synthesis): right with the
 * probability everything in the prompt earns, wrong otherwise. A revising member that sees the
 * right answer among its teammates' gets the domain's recognition bonus; one whose teammates all
 * give the same wrong answer is pulled towards it (`conformity`) and, if wrong, adopts it. The
 * reply names the task's strategies the prompt carried, so teammates who read it can pick them up.
 */
export const solveResponder: Responder = ({ prompt, entry, world, params, rng }) => {
  if (!entry) return { text: 'I cannot tell what is being asked.', lengthClass: 'qa' };
  const { task, spec } = entry;
  const others = prompt.sections.get('other answers');
  const recognised = others !== undefined && others.includes(goldMarker(task));
  const herd = others === undefined ? null : unanimousTeammates(task, others);
  const conform = herd !== null && herd !== task.hidden.answer;
  const bonus = (recognised ? params.recognize[task.domain] : 0) - (conform ? params.conformity[task.domain] : 0);
  const b = successBreakdown(world, params, prompt.persona, prompt.full, task, spec, bonus);
  const answer = rng.chance(b.probability) ? task.hidden.answer : conform ? herd! : wrongAnswer(task, params, rng);
  return render(task, answer, params, rng, methodLine(world, task, prompt.full));
};
