import { z } from 'zod';
import { meetsThreshold, nicheLead, type NicheLead } from '../specialization';
import { activeRoster, unitInterval, fmt, type LifecycleContext, type LifecycleOperator, type LifecycleOperatorDescriptor, configKnobs } from './operator';
import { spawnChild } from './spawn-child';

/** Fork: an agent that dominates a niche is cloned (parent kept), the clone aimed at that niche. */
export const forkConfigSchema = z.strictObject({
  /** Whether the operator runs at all. */
  enabled: z.boolean().default(true),
  /** Lead in competence over the niche's next best agent needed to dominate it. */
  margin: unitInterval().default(0.15),
  /** Competence on the niche the dominant agent must reach. */
  minCompetence: unitInterval().default(0.7),
  /** Tasks on the niche the dominant agent must have seen (exposure). */
  minExposure: z.number().int().min(0).default(10),
  /** Fork decisions per window at most. */
  maxPerWindow: z.number().int().min(0).default(1),
});

/** Fork's settings, as the window hands them over (`population.lifecycle.fork`). */
export type ForkConfig = z.infer<typeof forkConfigSchema>;

/** A fork decision: clone `parent` (kept) into a child aimed at the `niche` it dominates. */
export interface ForkDecision {
  readonly operator: 'fork';
  readonly parent: string;
  readonly niche: string;
  readonly reason: string;
}

/**
 * Fork: an agent dominates a niche when its competence there leads the next best agent by at
 * least `fork.margin`, is at least `fork.minCompetence`, and it has seen at least
 * `fork.minExposure` tasks of the niche. It is cloned (parent kept), the clone aimed at the niche.
 * Largest leads first (ties: first-seen niche order); one fork per parent; a parent with an active
 * fork child is not forked again (otherwise a child that does not inherit competence would leave
 * the parent dominant and trigger a fork every window); at most `fork.maxPerWindow`, never past
 * `maxAgents`.
 */
export const fork: LifecycleOperator<ForkDecision> = (ctx: LifecycleContext): ForkDecision[] => {
  const cfg = ctx.config.fork as ForkConfig;
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
  const out: ForkDecision[] = [];
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

/** The fork operator: decide above; applied by spawning the clone with a mutated persona. */
export const forkOperator: LifecycleOperatorDescriptor<ForkDecision, typeof forkConfigSchema> = {
  knobs: configKnobs(forkConfigSchema, [
    { kind: 'bool', path: 'enabled', description: 'fork runs' },
    { kind: 'number', path: 'margin', min: 0.05, max: 0.5, description: 'lead over the next best agent needed to dominate a niche' },
    { kind: 'number', path: 'minCompetence', min: 0.5, max: 0.95, description: 'competence the dominant agent must reach' },
    { kind: 'int', path: 'maxPerWindow', min: 0, max: 2, description: 'forks per window at most' },
  ]),
  name: 'fork',
  planRank: 40,
  config: forkConfigSchema,
  decide: fork,
  rosterDelta: 1,
  agents: (d) => [d.parent],
  retires: () => [],
  apply: (w, d) => spawnChild(w, d, 'Clone the agent below, which dominates this area, with a mutated persona: keep what works, sharpen it toward this area, change the emphasis.'),
};
