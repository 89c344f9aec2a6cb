import { z } from 'zod';
import { competenceOf } from '../../individual/competence';
import { viewAgent, type AgentView } from '../../individual/agent-view';
import { meetsThreshold } from '../specialization';
import { activeRoster, unitInterval, fmt, type LifecycleContext, type LifecycleOperator, type LifecycleOperatorDescriptor } from './operator';
import { writePersona } from './persona-writer';
import { sendToSupervisor } from '../supervisor-ops';

/** Specialize: a strong agent's persona is nudged toward its dominant niche. */
export const specializeConfigSchema = z.strictObject({
  /** Whether the operator runs at all. */
  enabled: z.boolean().default(true),
  /** Competence on the agent's dominant niche it must reach. */
  minCompetence: unitInterval().default(0.7),
  /** Lead of the dominant niche over the agent's own second-best niche. */
  margin: unitInterval().default(0.15),
  /** Tasks on the dominant niche the agent must have seen (exposure). */
  minExposure: z.number().int().min(0).default(5),
  /** Specialize decisions per window at most. */
  maxPerWindow: z.number().int().min(0).default(2),
});

/** Specialize's settings, as the window hands them over (`population.lifecycle.specialize`). */
export type SpecializeConfig = z.infer<typeof specializeConfigSchema>;

/** A specialize decision: rewrite `agent`'s persona toward `niche`. */
export interface SpecializeDecision {
  readonly operator: 'specialize';
  readonly agent: string;
  readonly niche: string;
  readonly reason: string;
}

/** An agent's best niche and how far it leads the agent's own second best. */
export interface DominantNiche {
  readonly niche: string;
  readonly competence: number;
  /** The agent's competence on its second-best niche (equal to `competence` with one niche). */
  readonly secondBest: number;
  readonly margin: number;
}

/** The agent's highest-competence niche among `niches` (ties: first-seen order), or null for no niches. */
export function dominantNiche(agent: AgentView, niches: readonly string[], c0: number): DominantNiche | null {
  let best: string | undefined;
  let bestC = -Infinity;
  let secondC = -Infinity;
  for (const n of niches) {
    const c = competenceOf(agent, n, c0);
    if (c > bestC) {
      secondC = bestC;
      bestC = c;
      best = n;
    } else if (c > secondC) {
      secondC = c;
    }
  }
  if (best === undefined) return null;
  const secondBest = secondC === -Infinity ? bestC : secondC;
  return { niche: best, competence: bestC, secondBest, margin: bestC - secondBest };
}

/**
 * Whether a persona already names a niche: the niche id as a whole word, case-insensitive, with
 * `-`, `_` and spaces interchangeable ("list-functions" is named by "List functions").
 */
export function personaNames(persona: string, niche: string): boolean {
  const parts = niche.split(/[-_\s]+/).filter(Boolean).map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  if (parts.length === 0) return false;
  return new RegExp(`(^|[^\\p{L}\\p{N}])${parts.join('[-_\\s]+')}($|[^\\p{L}\\p{N}])`, 'iu').test(persona);
}

/**
 * Specialize: an agent whose competence on its dominant niche is at least
 * `specialize.minCompetence`, leads its own second-best niche by at least `specialize.margin`,
 * with at least `specialize.minExposure` tasks there, and whose persona does not yet name the
 * niche (by id, or by one of `ctx.nicheTerms`), gets its persona nudged toward it. Needs two or more seen niches. Largest margins first
 * (ties: spawn order); at most `specialize.maxPerWindow`. The roster size does not change.
 */
export const specialize: LifecycleOperator<SpecializeDecision> = (ctx: LifecycleContext): SpecializeDecision[] => {
  const cfg = ctx.config.specialize as SpecializeConfig;
  if (cfg.maxPerWindow <= 0 || ctx.niches.length < 2) return [];
  const candidates: Array<{ a: AgentView; i: number; d: DominantNiche }> = [];
  activeRoster(ctx).forEach((a, i) => {
    const d = dominantNiche(a, ctx.niches, ctx.c0);
    const named = personaNames(a.persona, d?.niche ?? '') || (d !== null && (ctx.nicheTerms?.[d.niche] ?? []).some((t) => personaNames(a.persona, t)));
    if (!d || named || (a.exposure[d.niche] ?? 0) < cfg.minExposure) return;
    if (meetsThreshold(d.competence, cfg.minCompetence) && meetsThreshold(d.margin, cfg.margin)) candidates.push({ a, i, d });
  });
  return candidates
    .sort((x, y) => y.d.margin - x.d.margin || x.i - y.i)
    .slice(0, cfg.maxPerWindow)
    .map(({ a, d }) => ({
      operator: 'specialize' as const,
      agent: a.id,
      niche: d.niche,
      reason:
        `${a.id} is strongest on ${d.niche}: competence ${fmt(d.competence)} (≥ ${fmt(cfg.minCompetence)}) leads its next niche ` +
        `(${fmt(d.secondBest)}) by ${fmt(d.margin)} (≥ ${fmt(cfg.margin)}) over ${a.exposure[d.niche] ?? 0} tasks, and its persona does not name ${d.niche}`,
    }));
};

/** The specialize operator: decide above; applied by writing the nudged persona and the supervisor's SET_PERSONA. */
export const specializeOperator: LifecycleOperatorDescriptor<SpecializeDecision, typeof specializeConfigSchema> = {
  knobs: [
    { kind: 'bool', path: 'enabled', description: 'specialize runs' },
    { kind: 'number', path: 'minCompetence', min: 0.5, max: 0.95, description: 'competence on its niche an agent must reach' },
    { kind: 'number', path: 'margin', min: 0.05, max: 0.5, description: 'lead needed on that niche' },
    { kind: 'int', path: 'maxPerWindow', min: 0, max: 3, description: 'persona rewrites per window at most' },
  ],
  name: 'specialize',
  planRank: 50,
  config: specializeConfigSchema,
  decide: specialize,
  rosterDelta: 0,
  agents: (d) => [d.agent],
  retires: () => [],
  apply: async (w, d) => {
    const agent = viewAgent(w.supervisor.getSnapshot().context.agents.get(d.agent)!);
    const persona = await writePersona(w.model, agent, w.specs.get(d.niche)!, 'Nudge this strong agent\'s persona toward the area it dominates.', `${w.window}-specialize`, w.personaNote);
    sendToSupervisor(w.supervisor, { type: 'SET_PERSONA', id: d.agent, persona });
    w.log.append({ type: 'agent.persona', agentId: d.agent, persona, reason: d.reason, niche: d.niche, window: w.window, poolVersion: w.version });
    return [d.agent];
  },
};
