import type { Rng } from '../../core/rng';
import type { ReadPrompt } from '../prompt-reader';
import type { SimParams } from '../sim-params';
import type { SimWorld } from '../sim-world';
import type { SimNiche, SimTask } from '../side-channel';

const TYPE = /problems of type [a-z]+(?: [a-z]+)*/;
const AREA = /When working on ([^,:]+)/;

/**
 * The retrieved lessons of a solve-like prompt that were learnt in another situation and name no
 * strategy this task needs (docs/simulated-model.md, "Sharing that has a cost"): a lesson whose
 * text says it was learnt on another area (`When working on <other title>`) or on another problem
 * type than the one this task's text shows. It reads only the prompt's "Your experience" items
 * (under a context budget, the ones read) and what the task's text shows.
 */
export function foreignLessons(world: SimWorld, prompt: ReadPrompt, task: SimTask, spec: SimNiche): number {
  const items = (prompt.sections.get('your experience') ?? '').split('\n').filter((l) => l.startsWith('- '));
  if (items.length === 0) return 0;
  const type = world.problemType(task.niche, task.question);
  const required = new Set(world.required(task.niche, task.id, task.difficulty, task.question).map((s) => s.phrase));
  let n = 0;
  for (const item of items) {
    const named = world.mentioned(item);
    if (named.length === 0 || named.some((s) => required.has(s.phrase))) continue;
    const area = AREA.exec(item)?.[1]?.trim();
    const itemType = TYPE.exec(item)?.[0];
    const otherArea = area !== undefined && area !== spec.title;
    const otherType = itemType !== undefined && itemType !== type;
    if (otherArea || otherType) n++;
  }
  return n;
}

/**
 * The logit an attempt loses to lessons that mislead it: each foreign lesson (`foreignLessons`)
 * misleads with chance `foreignMislead` (one draw each), costing `misleadCost`; at most
 * `dilutionCap` count. 0 and no draw when `foreignMislead` is 0 (the world as it was).
 */
export function misleadPenalty(world: SimWorld, params: SimParams, prompt: ReadPrompt, task: SimTask, spec: SimNiche, rng: Rng): number {
  if (params.foreignMislead <= 0) return 0;
  const n = Math.min(params.dilutionCap, foreignLessons(world, prompt, task, spec));
  let misled = 0;
  for (let i = 0; i < n; i++) if (rng.chance(params.foreignMislead)) misled++;
  return params.misleadCost * misled;
}
