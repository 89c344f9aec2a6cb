import type { Rng } from '../../core/rng';
import type { SimWorld, Strategy } from '../sim-world';
import type { SimParams } from '../sim-params';
import type { SideChannelEntry } from '../side-channel';
import type { Responder } from './responder';
import { goldMarker } from './solve-responder';

const GENERIC_LESSONS = [
  'Re-read the question once more before giving the final answer.',
  'Write the final answer exactly in the requested format.',
  'Check the last step again; most slips happen there.',
  'Do not stop at the first plausible answer; confirm it against the statement.',
];
const GENERIC_META = [
  'Slow down on the step that feels most routine.',
  'State what is being asked in your own words before solving.',
  'When two readings are possible, check which one the wording supports.',
];

/** The lesson text that carries a strategy: its phrase and what it says to do. */
export function strategyLesson(s: Strategy, area: string): string {
  return `When working on ${area}, apply the ${s.phrase}: ${s.gloss}.`;
}

function pickUnknown(candidates: readonly Strategy[], known: ReadonlySet<string>, rng: Rng): Strategy | undefined {
  const unknown = candidates.filter((s) => !known.has(s.phrase));
  return unknown.length > 0 ? rng.pick(unknown) : undefined;
}

/**
 * The discovery draw (docs/simulated-model.md, "Discovery"): reflecting on a task with the given reward, the model
 * may name one of the task's required strategies — else one of its domain's — that `known` lacks,
 * with chance `discoverOnSuccess` (reward ≥ 0.5) or `discoverOnFailure`. After a failure that chance
 * falls with the task's level and the agent's competence (`reflectDifficulty`, `reflectCompetence`;
 * `held`: the share of the task's required strategies the agent's own prompt names). The only way the
 * simulator adds knowledge no prompt carried; post-task reflection and CoDream's private reflect
 * phase both use it, once per member. With chance `wrongLesson` a discovery names one of the
 * niche's decoys instead (a technique that helps no task).
 */
export function discoveryDraw(
  entry: SideChannelEntry, reward: number, known: ReadonlySet<string>, world: SimWorld, params: SimParams, rng: Rng, held = 0,
): Strategy | undefined {
  const { task } = entry;
  const pDiscover = reward >= 0.5 ? params.discoverOnSuccess : params.discoverOnFailure * selfDiagnosis(params, task.difficulty, held);
  if (!rng.chance(pDiscover)) return undefined;
  const found = pickUnknown(world.required(task.niche, task.id, task.difficulty, task.question), known, rng)
    ?? pickUnknown(world.domainStrategies(task.domain), known, rng);
  // A wrong lesson (`wrongLesson`): the discovery names a decoy instead. No draw at 0, so worlds without it draw as before.
  if (found && params.wrongLesson > 0 && rng.chance(params.wrongLesson)) {
    const decoys = world.decoyStrategies(task.niche);
    return pickUnknown(decoys, known, rng) ?? rng.pick(decoys);
  }
  return found;
}

/**
 * How much of the failure-discovery chance a model keeps reflecting alone: exp(−reflectDifficulty·level)
 * · (1 − reflectCompetence·(1 − held)). Exactly 1 with both at 0 (the draw as before).
 */
export function selfDiagnosis(params: SimParams, level: number, held: number): number {
  return Math.exp(-params.reflectDifficulty * level) * (1 - params.reflectCompetence * (1 - Math.min(1, Math.max(0, held))));
}

/** The share of a task's required strategies that `text` names. */
export function heldShare(entry: SideChannelEntry, world: SimWorld, text: string): number {
  const { task } = entry;
  const required = world.required(task.niche, task.id, task.difficulty, task.question);
  const names = new Set(world.mentioned(text).map((s) => s.phrase));
  return required.filter((s) => names.has(s.phrase)).length / required.length;
}

/** What the reflecting member wrote or held (`own`), and what the team answered and wrote (`team`). */
interface ReflectionParts { readonly own: string; readonly team: string }
const NO_PARTS: ReflectionParts = { own: '', team: '' };

const LESSONS_HAD = /Lessons you had in your prompt:\n([\s\S]*?)\n\nYour final answer: ([\s\S]*?)\nTeam's final answer: ([\s\S]*?)\nReward:/;

/**
 * The reflecting member's own text (lessons it had, its answer) and the team's (its answer and,
 * on the "How the team reached it" line, its reply as written), as the reflection prompt shows them.
 */
function reflectionParts(full: string): ReflectionParts {
  const m = LESSONS_HAD.exec(full);
  return m ? { own: `${m[1]}\n${m[2]}`, team: m[3]! } : NO_PARTS;
}

/**
 * Contrast (`contrastUptake`): the member's own answer failed (the reward its prompt shows is below
 * 1) and the team's, shown in the prompt with how the team reached it, was right; the team's reply
 * names required strategies the member's lessons and answer do not. With chance `contrastUptake`
 * its lesson names one of them. Undefined (and no draw) otherwise.
 */
function contrastDraw(entry: SideChannelEntry, { own, team }: ReflectionParts, reward: number, world: SimWorld, params: SimParams, rng: Rng): Strategy | undefined {
  if (params.contrastUptake <= 0 || reward >= 1) return undefined;
  const gold = goldMarker(entry.task);
  if (!team.includes(gold) || own.includes(gold)) return undefined;
  const ownNames = new Set(world.mentioned(own).map((s) => s.phrase));
  const required = new Set(world.required(entry.task.niche, entry.task.id, entry.task.difficulty, entry.task.question).map((s) => s.phrase));
  const carried = world.mentioned(team).filter((s) => required.has(s.phrase) && !ownNames.has(s.phrase));
  return carried.length > 0 && rng.chance(params.contrastUptake) ? rng.pick(carried) : undefined;
}

/**
 * Answers a reflection prompt with `{"lesson", "meta"}` JSON. Reading only the reward it is shown
 * and the lessons already in the prompt, it may surface one of the task's strategies the agent
 * lacked (more likely after a success); otherwise it writes a generic lesson.
 */
export const reflectResponder: Responder = ({ prompt, entry, world, params, rng }) => {
  const rewardMatch = /Reward:\s*([0-9.]+)/.exec(prompt.full);
  const reward = rewardMatch ? Number(rewardMatch[1]) : 0;
  const known = new Set(world.mentioned(prompt.full).map((s) => s.phrase));
  let lesson = rng.pick(GENERIC_LESSONS);
  let meta = rng.pick(GENERIC_META);
  if (entry) {
    // The prompt's parts are read once, for both draws that use them (only when either is on).
    const parts: ReflectionParts = params.reflectCompetence > 0 || params.contrastUptake > 0 ? reflectionParts(prompt.full) : NO_PARTS;
    const own = params.reflectCompetence > 0 ? heldShare(entry, world, `${prompt.persona}\n${parts.own}`) : 0;
    const s = contrastDraw(entry, parts, reward, world, params, rng) ?? discoveryDraw(entry, reward, known, world, params, rng, own);
    // A lesson says what it was learnt on: the niche, and the problem type the task's text showed (`taskFamilies`).
    const type = world.problemType(entry.task.niche, entry.task.question);
    if (s) lesson = strategyLesson(s, type === undefined ? entry.spec.title : `${entry.spec.title}, ${type}`);
    if (rng.chance(params.metaDiscovery)) {
      const s = pickUnknown(world.crossStrategies(), known, rng);
      if (s) meta = `On any task, use the ${s.phrase}: ${s.gloss}.`;
    }
  }
  const json = JSON.stringify({ lesson, meta });
  if (rng.chance(params.malformed)) return { text: `Lesson: ${lesson}\nMeta ${meta}`, lengthClass: 'json' };
  const text = rng.chance(params.thinkBlock) ? `<think>\nWhat made the difference here?\n</think>\n\`\`\`json\n${json}\n\`\`\`` : json;
  return { text, lengthClass: 'json' };
};
