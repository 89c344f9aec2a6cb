import { z } from 'zod';
import { competenceOf } from '../../individual/competence';
import { viewAgent, type AgentView } from '../../individual/agent-view';
import { meetsThreshold } from '../specialization';
import { activeRoster, unitInterval, fmt, type LifecycleContext, type LifecycleOperator, type LifecycleOperatorDescriptor, configKnobs } from './operator';
import { writePersona } from './persona-writer';
import { sendToSupervisor } from '../supervisor-ops';

/** Specialize: an agent's persona is nudged toward the niche where it leads the pool by the most. */
export const specializeConfigSchema = z.strictObject({
  /** Whether the operator runs at all. */
  enabled: z.boolean().default(true),
  /**
   * Competence on the niche it must have at least: c0 by default, so an agent is never steered
   * toward a niche it does worse on than one that never worked it.
   */
  minCompetence: unitInterval().default(0.5),
  /**
   * Lead over the best other active agent on the niche (`poolLead`) it must have. Half the
   * specialist margin by default: the nudge goes to a niche's leader while it is on its way to
   * being the specialist, which the persona's match then helps it become.
   */
  margin: unitInterval().default(0.05),
  /** Tasks on the niche the agent must have seen (exposure). */
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

/** The niche where an agent leads the pool by the most, and by how much. */
export interface PoolLead {
  readonly niche: string;
  readonly competence: number;
  /** Competence of the best other active agent on that niche (c0 when there is none). */
  readonly bestOther: number;
  /** `competence − bestOther`; negative when the agent leads no niche. */
  readonly lead: number;
}

/**
 * The niche (among `niches`) where `agent` leads the rest of `roster` by the most: its competence
 * minus the best other agent's there (an unseen niche counts at `c0`). Ties: first-seen order.
 * Null for no niches. The lead is over the best other agent, not the median: a specialist is the
 * agent the assembler anchors on the niche by a clear margin (`specialistOf`), so this is the gap
 * that makes one, and each niche has one agent with a positive lead, so two agents are never
 * steered toward the same niche.
 */
export function poolLead(agent: AgentView, roster: readonly AgentView[], niches: readonly string[], c0: number): PoolLead | null {
  let best: PoolLead | null = null;
  for (const niche of niches) {
    const competence = competenceOf(agent, niche, c0);
    let bestOther = -Infinity;
    for (const o of roster) if (o.id !== agent.id) bestOther = Math.max(bestOther, competenceOf(o, niche, c0));
    if (bestOther === -Infinity) bestOther = c0;
    const lead = competence - bestOther;
    if (!best || lead > best.lead) best = { niche, competence, bestOther, lead };
  }
  return best;
}

/**
 * Whether a persona already names a niche: the niche id as a whole word, case-insensitive, with
 * `-`, `_` and spaces interchangeable ("list-functions" is named by "List functions").
 */
export function personaNames(persona: string, niche: string): boolean {
  let re = namePatterns.get(niche);
  if (re === undefined) {
    const parts = niche.split(/[-_\s]+/).filter(Boolean).map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
    re = parts.length === 0 ? null : new RegExp(`(^|[^\\p{L}\\p{N}])${parts.join('[-_\\s]+')}($|[^\\p{L}\\p{N}])`, 'iu');
    namePatterns.set(niche, re);
  }
  return re !== null && re.test(persona);
}

/** The pattern of each niche id or term asked about (a window asks for every agent and niche: compiled once). */
const namePatterns = new Map<string, RegExp | null>();

/**
 * Whether `persona` is aimed at `niche`: it names the niche's id or title (`ctx.nicheTerms`, title
 * first), or at least two of its keywords. One keyword is not enough: the seed persona's "work
 * step by step" names arithmetic's keyword "step-by-step" without aiming at arithmetic.
 */
export function aimedAt(persona: string, niche: string, terms: readonly string[] = []): boolean {
  const [title, ...keywords] = terms;
  if (personaNames(persona, niche) || (title !== undefined && personaNames(persona, title))) return true;
  return keywords.filter((k) => personaNames(persona, k)).length >= 2;
}

const names = (ctx: LifecycleContext, persona: string, niche: string) => aimedAt(persona, niche, ctx.nicheTerms?.[niche]);

/**
 * Specialize: an agent gets its persona nudged toward the niche where it leads the pool by the
 * most (`poolLead`) when that lead is at least `specialize.margin`, its competence there at least
 * `specialize.minCompetence`, with at least `specialize.minExposure` tasks there, and its persona
 * names neither that niche (by id, or by one of `ctx.nicheTerms`) nor another niche it still
 * leads by the margin (a persona is rewritten toward one niche at a time; an agent already aimed at
 * a niche it holds keeps it). Not toward its own easiest niche: where everyone is strong, leading
 * oneself says nothing about the pool. Needs two or more seen niches and two or more agents.
 * Largest leads first (ties: spawn order); at most `specialize.maxPerWindow`. The roster size does
 * not change.
 */
export const specialize: LifecycleOperator<SpecializeDecision> = (ctx: LifecycleContext): SpecializeDecision[] => {
  const cfg = ctx.config.specialize as SpecializeConfig;
  const roster = activeRoster(ctx);
  if (cfg.maxPerWindow <= 0 || ctx.niches.length < 2 || roster.length < 2) return [];
  const candidates: Array<{ a: AgentView; i: number; d: PoolLead }> = [];
  // A niche some active persona already names has its aimed agent; an agent already aimed keeps its aim.
  const aimed = (n: string) => roster.some((o) => names(ctx, o.persona, n));
  const open = ctx.niches.filter((n) => !aimed(n));
  roster.forEach((a, i) => {
    if (ctx.niches.some((n) => names(ctx, a.persona, n))) return;
    const d = poolLead(a, roster, open, ctx.c0);
    if (!d || !meetsThreshold(d.lead, cfg.margin) || !meetsThreshold(d.competence, cfg.minCompetence)) return;
    if ((a.exposure[d.niche] ?? 0) >= cfg.minExposure) candidates.push({ a, i, d });
  });
  return candidates
    .sort((x, y) => y.d.lead - x.d.lead || x.i - y.i)
    .slice(0, cfg.maxPerWindow)
    .map(({ a, d }) => ({
      operator: 'specialize' as const,
      agent: a.id,
      niche: d.niche,
      reason:
        `${a.id} leads the pool most on ${d.niche}: competence ${fmt(d.competence)} against the best other agent's ${fmt(d.bestOther)}, ` +
        `a lead of ${fmt(d.lead)} (≥ ${fmt(cfg.margin)}) over ${a.exposure[d.niche] ?? 0} tasks, and its persona does not name ${d.niche}`,
    }));
};

/** The specialize operator: decide above; applied by writing the nudged persona and the supervisor's SET_PERSONA. */
export const specializeOperator: LifecycleOperatorDescriptor<SpecializeDecision, typeof specializeConfigSchema> = {
  knobs: configKnobs(specializeConfigSchema, [
    { kind: 'bool', path: 'enabled', description: 'specialize runs' },
    { kind: 'number', path: 'minCompetence', min: 0.5, max: 0.95, description: 'competence on its niche an agent must reach' },
    { kind: 'number', path: 'margin', min: 0.05, max: 0.5, description: 'lead needed on that niche' },
    { kind: 'int', path: 'maxPerWindow', min: 0, max: 3, description: 'persona rewrites per window at most' },
  ]),
  name: 'specialize',
  planRank: 50,
  config: specializeConfigSchema,
  decide: specialize,
  rosterDelta: 0,
  agents: (d) => [d.agent],
  retires: () => [],
  apply: async (w, d) => {
    const agent = viewAgent(w.supervisor.getSnapshot().context.agents.get(d.agent)!);
    const persona = await writePersona(w.model, agent, w.specs.get(d.niche)!, 'Nudge this agent\'s persona toward the area where it leads the pool.', `${w.window}-specialize`, w.personaNote);
    sendToSupervisor(w.supervisor, { type: 'SET_PERSONA', id: d.agent, persona });
    w.log.append({ type: 'agent.persona', agentId: d.agent, persona, reason: d.reason, niche: d.niche, window: w.window, poolVersion: w.version });
    return [d.agent];
  },
};
