import type { Rng } from '../../core/rng';
import type { SimWorld, Strategy } from '../sim-world';
import type { SimParams } from '../sim-params';
import type { SideChannelEntry } from '../side-channel';
import type { Responder } from './responder';

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
 * with chance `discoverOnSuccess` (reward ≥ 0.5) or `discoverOnFailure`. The only way the
 * simulator adds knowledge no prompt carried; post-task reflection and CoDream's private reflect
 * phase both use it, once per member. With chance `wrongLesson` a discovery names one of the
 * niche's decoys instead (a technique that helps no task).
 */
export function discoveryDraw(entry: SideChannelEntry, reward: number, known: ReadonlySet<string>, world: SimWorld, params: SimParams, rng: Rng): Strategy | undefined {
  const { task } = entry;
  const pDiscover = reward >= 0.5 ? params.discoverOnSuccess : params.discoverOnFailure;
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
    const s = discoveryDraw(entry, reward, known, world, params, rng);
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
