import type { AgentView } from '../roster';
import { meetsThreshold } from '../specialization';
import { activeRoster, fmt, rosterFloor, type LifecycleContext, type LifecycleDecision, type LifecycleOperator } from './operator';

/** Mean reward over an agent's last `window` observations, or null when it has fewer. */
export function recentScore(agent: AgentView, window: number): number | null {
  if (agent.history.length < window || window <= 0) return null;
  const last = agent.history.slice(-window);
  return last.reduce((s, h) => s + h.reward, 0) / window;
}

/**
 * Prune: an agent whose recent score (mean reward over its last `prune.window` observations;
 * agents with fewer are not judged) is at least `prune.lag` below the pool mean of the same
 * statistic (over every judged agent, itself included) is retired. Largest lag first (ties: spawn
 * order); at most `prune.maxPerWindow`; never below `max(minAgents, teamSize + 1)`.
 */
export const prune: LifecycleOperator = (ctx: LifecycleContext): LifecycleDecision[] => {
  const cfg = ctx.config.prune;
  const roster = activeRoster(ctx);
  const room = Math.min(cfg.maxPerWindow, roster.length - rosterFloor(ctx.bounds));
  if (room <= 0) return [];
  const judged = roster
    .map((a, i) => ({ a, i, score: recentScore(a, cfg.window) }))
    .filter((x): x is { a: AgentView; i: number; score: number } => x.score !== null);
  if (judged.length < 2) return [];
  const poolMean = judged.reduce((s, x) => s + x.score, 0) / judged.length;
  return judged
    .map((x) => ({ ...x, lag: poolMean - x.score }))
    .filter((x) => meetsThreshold(x.lag, cfg.lag))
    .sort((x, y) => y.lag - x.lag || x.i - y.i)
    .slice(0, room)
    .map((x) => ({
      operator: 'prune' as const,
      agent: x.a.id,
      reason:
        `${x.a.id} scored ${fmt(x.score)} over its last ${cfg.window} tasks, ${fmt(x.lag)} below the pool mean ${fmt(poolMean)} ` +
        `of ${judged.length} judged agents (lag ≥ ${fmt(cfg.lag)})`,
    }));
};
