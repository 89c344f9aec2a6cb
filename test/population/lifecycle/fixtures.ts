import { createRng, type Rng } from '../../../src/core/rng';
import { Archive } from '../../../src/individual/archive';
import type { AgentOrigin } from '../../../src/individual/agent-machine';
import type { AgentView } from '../../../src/individual/agent-view';
import { lifecycleConfigSchema, type LifecycleConfigInput } from '../../../src/population/lifecycle/lifecycle-config';
import { RewardHistory } from '../../../src/individual/reward-history';
import type { LifecycleContext, RosterBounds } from '../../../src/population/lifecycle/operator';

/** Hand-built agent view: exposure defaults to 20 on every niche it has a competence for. */
export function agent(
  id: string,
  competence: Record<string, number> = {},
  opts: { exposure?: Record<string, number>; rewards?: number[]; persona?: string; origin?: AgentOrigin } = {},
): AgentView {
  const exposure = opts.exposure ?? Object.fromEntries(Object.keys(competence).map((n) => [n, 20]));
  const history = RewardHistory.of((opts.rewards ?? []).map((reward, i) => ({ niche: 'n', reward, poolVersion: i + 1 })));
  return {
    id, persona: opts.persona ?? 'You are a careful problem solver.', archive: new Archive({ dim: 8 }), competence, exposure, history,
    origin: opts.origin ?? { kind: 'seed', parents: [], poolVersion: 0 }, successor: null, eta: 0.1, c0: 0.5, status: 'active',
  };
}

/** `n` observations of the same reward. */
export const rewards = (n: number, r = 0.5): number[] => Array.from({ length: n }, () => r);

/** A lifecycle context around a roster; niches default to every competence key in first-seen order. */
export function ctxOf(
  roster: AgentView[],
  o: { niches?: string[]; recentNiches?: Record<string, number>; bounds?: Partial<RosterBounds>; config?: LifecycleConfigInput; rng?: Rng; window?: number; unspecializedFor?: Record<string, number> } = {},
): LifecycleContext {
  const niches = o.niches ?? [...new Set(roster.flatMap((a) => Object.keys(a.competence)))];
  return {
    roster, niches, recentNiches: o.recentNiches ?? {}, window: o.window ?? 1, ...(o.unspecializedFor ? { unspecializedFor: o.unspecializedFor } : {}), poolVersion: 100, c0: 0.5,
    bounds: { minAgents: 3, maxAgents: 8, teamSize: 3, ...o.bounds },
    config: lifecycleConfigSchema.parse(o.config ?? {}), rng: o.rng ?? createRng('lifecycle-test'),
  };
}
