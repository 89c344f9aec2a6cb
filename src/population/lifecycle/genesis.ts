import { z } from 'zod';
import { competenceOf } from '../../individual/competence';
import type { AgentView } from '../../individual/agent-view';
import { meetsThreshold, nicheLead, specialistOf } from '../specialization';
import { activeRoster, fmt, type LifecycleContext, type LifecycleOperator, type LifecycleOperatorDescriptor, configKnobs } from './operator';
import { spawnChild } from './spawn-child';

/** Genesis: a recurring niche with no specialist gets a new agent spawned from the most generalist parent. */
export const genesisConfigSchema = z.strictObject({
  /** Whether the operator runs at all. */
  enabled: z.boolean().default(true),
  /** Tasks of the niche in the last window needed to call it recurring. */
  minRecurrence: z.number().int().min(1).default(10),
  /** Generalist score = mean competence − spreadPenalty · std of competence across niches. */
  spreadPenalty: z.number().min(0).default(1),
  /** Genesis decisions per window at most. */
  maxPerWindow: z.number().int().min(0).default(1),
});

/** Genesis's settings, as the window hands them over (`population.lifecycle.genesis`). */
export type GenesisConfig = z.infer<typeof genesisConfigSchema>;

/** A genesis decision: spawn a child of `parent` aimed at the uncovered `niche`. */
export interface GenesisDecision {
  readonly operator: 'genesis';
  readonly parent: string;
  readonly niche: string;
  readonly reason: string;
}

/** How generalist an agent is over a set of niches. */
export interface Generality {
  readonly agentId: string;
  /** Mean competence over the niches (unseen at c0). */
  readonly mean: number;
  /** Population standard deviation of competence over the niches. */
  readonly std: number;
  /** `mean − spreadPenalty · std`: high and even competence scores best. */
  readonly score: number;
}

/** Generality of one agent over `niches` (mean 0, std 0 for no niches). */
export function generalityOf(agent: AgentView, niches: readonly string[], c0: number, spreadPenalty: number): Generality {
  const xs = niches.map((n) => competenceOf(agent, n, c0));
  const mean = xs.length === 0 ? 0 : xs.reduce((s, x) => s + x, 0) / xs.length;
  const std = xs.length === 0 ? 0 : Math.sqrt(xs.reduce((s, x) => s + (x - mean) ** 2, 0) / xs.length);
  return { agentId: agent.id, mean, std, score: mean - spreadPenalty * std };
}

/**
 * Agents ranked most generalist first: highest `mean − spreadPenalty · std` of competence over the
 * niches (one score, so a slightly lower mean can win on much lower spread); ties in spawn order.
 */
export function rankGeneralists(roster: readonly AgentView[], niches: readonly string[], c0: number, spreadPenalty: number): Generality[] {
  return roster
    .map((a, i) => ({ g: generalityOf(a, niches, c0, spreadPenalty), i }))
    .sort((x, y) => y.g.score - x.g.score || x.i - y.i)
    .map((x) => x.g);
}

/**
 * Genesis: a niche that recurred at least `genesis.minRecurrence` times in the last window and has
 * had no specialist for `specialist.stableWindows` consecutive windows gets a new agent, spawned from the most generalist parent and aimed at the niche.
 * Most recurrent niches first (ties: first-seen order); each decision uses a different parent; at
 * most `genesis.maxPerWindow`, and never past `maxAgents`.
 */
export const genesis: LifecycleOperator<GenesisDecision> = (ctx: LifecycleContext): GenesisDecision[] => {
  const cfg = ctx.config.genesis as GenesisConfig;
  const sp = ctx.config.specialist;
  const roster = activeRoster(ctx);
  const room = Math.min(cfg.maxPerWindow, ctx.bounds.maxAgents - roster.length);
  if (room <= 0 || roster.length === 0) return [];
  const gaps = ctx.niches
    .map((niche, i) => ({ niche, i, recurrence: ctx.recentNiches[niche] ?? 0 }))
    // A gap must persist: no specialist for `specialist.stableWindows` consecutive windows, the
    // same persistence that makes a specialist stable. One window is too early to tell a gap from
    // a niche whose specialist is still emerging, and a newcomer there only spreads experience thinner.
    .filter((g) => meetsThreshold(g.recurrence, cfg.minRecurrence) && specialistOf(roster, g.niche, ctx.c0, sp.margin, sp.minExposure) === null
      && (ctx.unspecializedFor?.[g.niche] ?? sp.stableWindows) >= sp.stableWindows)
    .sort((x, y) => y.recurrence - x.recurrence || x.i - y.i);
  const parents = rankGeneralists(roster, ctx.niches, ctx.c0, cfg.spreadPenalty);
  const out: GenesisDecision[] = [];
  for (const gap of gaps) {
    const parent = parents[out.length];
    if (out.length >= room || !parent) break;
    const lead = nicheLead(roster, gap.niche, ctx.c0);
    const why = lead
      ? `leader ${lead.agentId} at ${fmt(lead.competence)} leads by ${fmt(lead.lead)} (specialist needs ≥ ${fmt(sp.margin)}) with exposure ${lead.exposure} (needs ≥ ${sp.minExposure})`
      : 'no leader';
    out.push({
      operator: 'genesis',
      parent: parent.agentId,
      niche: gap.niche,
      reason:
        `niche ${gap.niche} recurred ${gap.recurrence} times in the last window (≥ ${cfg.minRecurrence}) with no specialist ` +
        `for ${ctx.unspecializedFor?.[gap.niche] ?? sp.stableWindows} windows (≥ ${sp.stableWindows}): ${why}; ` +
        `parent ${parent.agentId} is the most generalist available (mean ${fmt(parent.mean)}, std ${fmt(parent.std)}, score ${fmt(parent.score)})`,
    });
  }
  return out;
};

/** The genesis operator: decide above; applied by spawning the child with a persona aimed at the niche. */
export const genesisOperator: LifecycleOperatorDescriptor<GenesisDecision, typeof genesisConfigSchema> = {
  knobs: configKnobs(genesisConfigSchema, [
    { kind: 'bool', path: 'enabled', description: 'genesis runs' },
    { kind: 'int', path: 'minRecurrence', min: 3, max: 60, description: 'tasks of a niche in the last window that make it recurring' },
    { kind: 'int', path: 'maxPerWindow', min: 0, max: 2, description: 'new agents per window at most' },
  ]),
  name: 'genesis',
  planRank: 30,
  config: genesisConfigSchema,
  decide: genesis,
  rosterDelta: 1,
  agents: (d) => [d.parent],
  retires: () => [],
  apply: (w, d) => spawnChild(w, d, 'A new agent joins the team to cover an area nobody specialises in yet. Starting from the persona below, write its persona aimed at this area.'),
};
