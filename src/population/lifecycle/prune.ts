import { z } from 'zod';
import type { AgentView } from '../../individual/agent-view';
import { meetsThreshold } from '../specialization';
import { activeRoster, fmt, rosterFloor, unitInterval, type LifecycleContext, type LifecycleOperator, type LifecycleOperatorDescriptor, configKnobs } from './operator';
import { sendToSupervisor } from '../supervisor-ops';

/** Prune: an agent whose recent score lags the pool mean is retired. */
export const pruneConfigSchema = z.strictObject({
  /** Whether the operator runs at all. */
  enabled: z.boolean().default(true),
  /** Last observations (from `history`) averaged into the recent score; agents with fewer are not judged. */
  window: z.number().int().min(1).default(20),
  /** How far (in reward, 0–1) an agent's recent rewards must fall below the pool's on the same niches. */
  lag: unitInterval().default(0.2),
  /** Prune decisions per window at most. */
  maxPerWindow: z.number().int().min(0).default(1),
});

/** Prune's settings, as the window hands them over (`population.lifecycle.prune`). */
export type PruneConfig = z.infer<typeof pruneConfigSchema>;

/** A prune decision: retire `agent`, with no successor. */
export interface PruneDecision {
  readonly operator: 'prune';
  readonly agent: string;
  readonly reason: string;
}

/** Mean reward over an agent's last `window` observations, or null when it has fewer. */
export function recentScore(agent: AgentView, window: number): number | null {
  if (agent.history.length < window || window <= 0) return null;
  const last = agent.history.slice(-window);
  return last.reduce((s, h) => s + h.reward, 0) / window;
}

/**
 * An agent's recent performance relative to the pool on the same niches: the mean, over its last
 * `window` observations, of (its reward − the judged pool's mean recent reward on that niche).
 * Comparing like with like keeps an agent that works hard niches from looking worse than one
 * that works easy ones; with a single niche it is the raw score minus the pool mean.
 */
function relativeScores(judged: readonly { a: AgentView; score: number }[], window: number): number[] {
  const byNiche = new Map<string, { sum: number; n: number }>();
  for (const { a } of judged) {
    for (const h of a.history.slice(-window)) {
      const t = byNiche.get(h.niche) ?? { sum: 0, n: 0 };
      t.sum += h.reward;
      t.n += 1;
      byNiche.set(h.niche, t);
    }
  }
  return judged.map(({ a }) => {
    const last = a.history.slice(-window);
    return last.reduce((s, h) => { const t = byNiche.get(h.niche)!; return s + h.reward - t.sum / t.n; }, 0) / last.length;
  });
}

/**
 * Prune: an agent whose recent rewards (its last `prune.window` observations; agents with fewer
 * are not judged) fall at least `prune.lag` below what the judged pool scored on the same niches
 * over the same window is retired. Largest lag first (ties: spawn order); at most
 * `prune.maxPerWindow`; never below `max(minAgents, teamSize + 1)`.
 */
export const prune: LifecycleOperator<PruneDecision> = (ctx: LifecycleContext): PruneDecision[] => {
  const cfg = ctx.config.prune as PruneConfig;
  const roster = activeRoster(ctx);
  const room = Math.min(cfg.maxPerWindow, roster.length - rosterFloor(ctx.bounds));
  if (room <= 0) return [];
  const judged = roster
    .map((a, i) => ({ a, i, score: recentScore(a, cfg.window) }))
    .filter((x): x is { a: AgentView; i: number; score: number } => x.score !== null);
  if (judged.length < 2) return [];
  const relative = relativeScores(judged, cfg.window);
  return judged
    .map((x, k) => ({ ...x, lag: -relative[k]! }))
    .filter((x) => meetsThreshold(x.lag, cfg.lag))
    .sort((x, y) => y.lag - x.lag || x.i - y.i)
    .slice(0, room)
    .map((x) => ({
      operator: 'prune' as const,
      agent: x.a.id,
      reason:
        `${x.a.id} scored ${fmt(x.score)} over its last ${cfg.window} tasks, ${fmt(x.lag)} below what the ${judged.length} judged agents ` +
        `scored on the same niches (lag ≥ ${fmt(cfg.lag)})`,
    }));
};

/** The prune operator: decide above; applied by the supervisor's RETIRE_AGENT. */
export const pruneOperator: LifecycleOperatorDescriptor<PruneDecision, typeof pruneConfigSchema> = {
  knobs: configKnobs(pruneConfigSchema, [
    { kind: 'bool', path: 'enabled', description: 'prune runs' },
    { kind: 'int', path: 'window', min: 10, max: 100, description: 'recent observations averaged into an agent\'s score' },
    { kind: 'number', path: 'lag', min: 0.05, max: 0.5, description: 'how far below the pool an agent\'s recent score must fall' },
    { kind: 'int', path: 'maxPerWindow', min: 0, max: 2, description: 'prunes per window at most' },
  ]),
  name: 'prune',
  planRank: 10,
  config: pruneConfigSchema,
  decide: prune,
  rosterDelta: -1,
  agents: (d) => [d.agent],
  retires: (d) => [d.agent],
  apply: async (w, d) => {
    sendToSupervisor(w.supervisor, { type: 'RETIRE_AGENT', id: d.agent });
    w.log.append({ type: 'agent.retired', agentId: d.agent, reason: d.reason, successor: null, window: w.window, poolVersion: w.version });
    return [d.agent];
  },
};
