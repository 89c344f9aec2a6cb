import { meetsThreshold, nicheLead, type NicheLead } from '../specialization';
import { activeRoster, fmt, type LifecycleContext, type LifecycleDecision, type LifecycleOperator } from './operator';

/**
 * Fork: an agent dominates a niche when its competence there leads the next best agent by at
 * least `fork.margin`, is at least `fork.minCompetence`, and it has seen at least
 * `fork.minExposure` tasks of the niche. It is cloned (parent kept), the clone aimed at the niche.
 * Largest leads first (ties: first-seen niche order); one fork per parent; a parent with an active
 * fork child is not forked again (otherwise a child that does not inherit competence would leave
 * the parent dominant and trigger a fork every window); at most `fork.maxPerWindow`, never past
 * `maxAgents`.
 */
export const fork: LifecycleOperator = (ctx: LifecycleContext): LifecycleDecision[] => {
  const cfg = ctx.config.fork;
  const roster = activeRoster(ctx);
  const room = Math.min(cfg.maxPerWindow, ctx.bounds.maxAgents - roster.length);
  if (room <= 0 || roster.length < 2) return [];
  const hasForkChild = new Set(roster.filter((a) => a.origin.kind === 'fork').flatMap((a) => a.origin.parents));
  const dominant: Array<{ niche: string; i: number; lead: NicheLead }> = [];
  ctx.niches.forEach((niche, i) => {
    const lead = nicheLead(roster, niche, ctx.c0);
    if (!lead || hasForkChild.has(lead.agentId)) return;
    if (meetsThreshold(lead.lead, cfg.margin) && meetsThreshold(lead.competence, cfg.minCompetence) && lead.exposure >= cfg.minExposure) {
      dominant.push({ niche, i, lead });
    }
  });
  dominant.sort((x, y) => y.lead.lead - x.lead.lead || x.i - y.i);
  const out: LifecycleDecision[] = [];
  const used = new Set<string>();
  for (const d of dominant) {
    if (out.length >= room) break;
    if (used.has(d.lead.agentId)) continue;
    used.add(d.lead.agentId);
    out.push({
      operator: 'fork',
      parent: d.lead.agentId,
      niche: d.niche,
      reason:
        `${d.lead.agentId} dominates ${d.niche}: competence ${fmt(d.lead.competence)} (≥ ${fmt(cfg.minCompetence)}) leads the next best ` +
        `(${fmt(d.lead.runnerUp)}) by ${fmt(d.lead.lead)} (≥ ${fmt(cfg.margin)}) over ${d.lead.exposure} tasks (≥ ${cfg.minExposure})`,
    });
  }
  return out;
};
