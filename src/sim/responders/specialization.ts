import type { ReadPrompt } from '../prompt-reader';
import { ownKnowledge } from '../prompt-reader';
import type { SimParams } from '../sim-params';
import type { SimWorld } from '../sim-world';
import type { SimNiche, SimTask } from '../side-channel';
import { personaMatches } from './persona-match';

const SPECIALISES = /You specialise in ([^(.\n]+)/i;

/**
 * The niche's own strategies the attempt's author holds (persona and its own retrieved experience,
 * not teammates' text): how much niche-specific know-how its context shows.
 */
export function nicheKnowHow(world: SimWorld, prompt: ReadPrompt, task: SimTask): number {
  return world.mentioned(ownKnowledge(prompt)).filter((s) => s.scope === task.niche).length;
}

/**
 * True when the persona says it specialises in another area and names none of this niche's keywords
 * (a persona the simulated persona writer wrote for another niche: "You specialise in …").
 */
export function specialisedElsewhere(persona: string, spec: SimNiche): boolean {
  const m = SPECIALISES.exec(persona);
  if (!m) return false;
  // The persona writer names the area by its title (cut at a parenthesis or full stop): a prefix of this niche's title is this niche.
  const area = m[1]!.trim().toLowerCase();
  return area.length > 0 && !spec.title.toLowerCase().startsWith(area) && !personaMatches(persona, spec);
}

/**
 * Specialization with an edge and a cost (docs/simulated-model.md, "The paper form"): a logit of
 * `expertise`·min(1, niche know-how / `expertiseSaturation`) for niche-specific experience the
 * author's own context shows, minus `offNichePersona` when its persona specialises in another area.
 * Exactly 0 with both at 0 (the world as it was).
 */
export function specializationBonus(world: SimWorld, params: SimParams, prompt: ReadPrompt, task: SimTask, spec: SimNiche): number {
  let b = 0;
  if (params.expertise > 0) b += params.expertise * Math.min(1, nicheKnowHow(world, prompt, task) / Math.max(1, params.expertiseSaturation));
  if (params.offNichePersona > 0 && specialisedElsewhere(prompt.persona, spec)) b -= params.offNichePersona;
  return b;
}
