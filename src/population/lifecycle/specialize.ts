import { competenceOf } from '../../individual/competence';
import type { AgentView } from '../../individual/agent-view';
import { meetsThreshold } from '../specialization';
import { activeRoster, fmt, type LifecycleContext, type LifecycleDecision, type LifecycleOperator } from './operator';

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
export const specialize: LifecycleOperator = (ctx: LifecycleContext): LifecycleDecision[] => {
  const cfg = ctx.config.specialize;
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
