import { z } from 'zod';
import { competenceOf } from '../../individual/competence';
import { competenceVector, vectorOverlap } from '../../team/style-overlap';
import type { AgentView } from '../../individual/agent-view';
import { meetsThreshold } from '../specialization';
import { activeRoster, unitInterval, fmt, rosterFloor, type LifecycleContext, type LifecycleOperator, type LifecycleOperatorDescriptor, configKnobs } from './operator';
import { sendToSupervisor } from '../supervisor-ops';

/** Merge: two agents with near-identical competence profiles become one; the other retires. */
export const mergeConfigSchema = z.strictObject({
  /** Whether the operator runs at all. */
  enabled: z.boolean().default(true),
  /** Style overlap (cosine of competence vectors over the seen niches) the pair must reach. */
  minOverlap: unitInterval().default(0.98),
  /** Largest absolute competence difference on any seen niche the pair may have. */
  maxGap: unitInterval().default(0.05),
  /** Own observations (`history` length, so inherited exposure does not count) each agent needs. */
  minObservations: z.number().int().min(0).default(10),
  /** Merge decisions per window at most. */
  maxPerWindow: z.number().int().min(0).default(1),
});

/** Merge's settings, as the window hands them over (`population.lifecycle.merge`). */
export type MergeConfig = z.infer<typeof mergeConfigSchema>;

/** A merge decision: `keep` absorbs `retire`'s archive; `retire` retires with `keep` as its successor. */
export interface MergeDecision {
  readonly operator: 'merge';
  readonly keep: string;
  readonly retire: string;
  readonly reason: string;
}

/** Sum of an agent's exposure over every niche. */
export function totalExposure(a: AgentView): number {
  return Object.values(a.exposure).reduce((s, e) => s + e, 0);
}

/** Mean competence over the niches (unseen at c0); 0 for no niches. */
function meanCompetence(a: AgentView, niches: readonly string[], c0: number): number {
  return niches.length === 0 ? 0 : niches.reduce((s, n) => s + competenceOf(a, n, c0), 0) / niches.length;
}

/**
 * Which of two merge partners survives: more total exposure; ties → higher mean competence over
 * the niches; ties → earlier in spawn order (`a` when `a` was spawned first).
 */
export function mergeSurvivor(a: AgentView, b: AgentView, niches: readonly string[], c0: number): { keep: AgentView; retire: AgentView } {
  const ea = totalExposure(a);
  const eb = totalExposure(b);
  if (ea !== eb) return ea > eb ? { keep: a, retire: b } : { keep: b, retire: a };
  const ma = meanCompetence(a, niches, c0);
  const mb = meanCompetence(b, niches, c0);
  if (ma !== mb) return ma > mb ? { keep: a, retire: b } : { keep: b, retire: a };
  return { keep: a, retire: b };
}

/**
 * Merge: two agents, each with at least `merge.minObservations` own observations, whose competence
 * profiles over the seen niches are near-identical — style overlap ≥ `merge.minOverlap` AND the
 * largest absolute competence difference ≤ `merge.maxGap` — become one (see `mergeSurvivor`).
 * Closest pairs first (smallest gap, then highest overlap, then spawn order); each agent in at
 * most one merge; at most `merge.maxPerWindow`; never below `max(minAgents, teamSize + 1)`.
 */
export const merge: LifecycleOperator<MergeDecision> = (ctx: LifecycleContext): MergeDecision[] => {
  const cfg = ctx.config.merge as MergeConfig;
  const roster = activeRoster(ctx);
  const room = Math.min(cfg.maxPerWindow, roster.length - rosterFloor(ctx.bounds));
  if (room <= 0 || ctx.niches.length === 0) return [];
  const eligible = roster.filter((a) => a.history.length >= cfg.minObservations);
  // Each agent's competence over the niches, read once (every pair of the roster is compared).
  const vectors = eligible.map((a) => competenceVector(a, ctx.niches, ctx.c0));
  const pairs: Array<{ a: AgentView; b: AgentView; overlap: number; gap: number; order: number }> = [];
  for (let i = 0; i < eligible.length; i++) {
    for (let j = i + 1; j < eligible.length; j++) {
      const a = eligible[i]!;
      const b = eligible[j]!;
      const va = vectors[i]!;
      const vb = vectors[j]!;
      const overlap = vectorOverlap(va, vb);
      let gap = -Infinity;
      for (let k = 0; k < va.c.length; k++) gap = Math.max(gap, Math.abs(va.c[k]! - vb.c[k]!));
      if (meetsThreshold(overlap, cfg.minOverlap) && meetsThreshold(cfg.maxGap, gap)) pairs.push({ a, b, overlap, gap, order: pairs.length });
    }
  }
  pairs.sort((x, y) => x.gap - y.gap || y.overlap - x.overlap || x.order - y.order);
  const out: MergeDecision[] = [];
  const used = new Set<string>();
  for (const p of pairs) {
    if (out.length >= room) break;
    if (used.has(p.a.id) || used.has(p.b.id)) continue;
    used.add(p.a.id).add(p.b.id);
    const { keep, retire } = mergeSurvivor(p.a, p.b, ctx.niches, ctx.c0);
    out.push({
      operator: 'merge',
      keep: keep.id,
      retire: retire.id,
      reason:
        `${p.a.id} and ${p.b.id} have near-identical competence profiles over ${ctx.niches.length} niches: overlap ${fmt(p.overlap)} ` +
        `(≥ ${fmt(cfg.minOverlap)}), largest gap ${fmt(p.gap)} (≤ ${fmt(cfg.maxGap)}); keeping ${keep.id} ` +
        `(exposure ${totalExposure(keep)} vs ${totalExposure(retire)}, mean competence ${fmt(meanCompetence(keep, ctx.niches, ctx.c0))} ` +
        `vs ${fmt(meanCompetence(retire, ctx.niches, ctx.c0))})`,
    });
  }
  return out;
};

/** The merge operator: decide above; applied by the supervisor's MERGE_AGENTS. */
export const mergeOperator: LifecycleOperatorDescriptor<MergeDecision, typeof mergeConfigSchema> = {
  knobs: configKnobs(mergeConfigSchema, [
    { kind: 'bool', path: 'enabled', description: 'merge runs' },
    { kind: 'number', path: 'minOverlap', min: 0.9, max: 1, description: 'style overlap a pair must reach' },
    { kind: 'number', path: 'maxGap', min: 0, max: 0.2, description: 'largest competence difference on any niche a pair may have' },
    { kind: 'int', path: 'maxPerWindow', min: 0, max: 2, description: 'merges per window at most' },
  ]),
  name: 'merge',
  planRank: 20,
  config: mergeConfigSchema,
  decide: merge,
  rosterDelta: -1,
  agents: (d) => [d.keep, d.retire],
  retires: (d) => [d.retire],
  apply: async (w, d) => {
    sendToSupervisor(w.supervisor, { type: 'MERGE_AGENTS', keep: d.keep, retire: d.retire });
    w.log.append({ type: 'agent.retired', agentId: d.retire, reason: d.reason, successor: d.keep, window: w.window, poolVersion: w.version });
    return [d.keep, d.retire];
  },
};
