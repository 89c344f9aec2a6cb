import { fork } from './fork';
import { genesis } from './genesis';
import { merge } from './merge';
import {
  activeRoster, decisionAgents, retiredBy, rosterDelta, rosterFloor,
  type LifecycleContext, type LifecycleDecision, type LifecycleOperator, type LifecycleOperatorName,
} from './operator';
import { prune } from './prune';
import { specialize } from './specialize';

/**
 * The order operators run in. Removals first (prune, then merge), so growth can use the room they
 * free; then genesis before fork (filling an uncovered niche beats a second agent on a covered
 * one); specialize last. Each operator sees the roster without the agents retired before it.
 */
export const LIFECYCLE_ORDER: readonly LifecycleOperatorName[] = ['prune', 'merge', 'genesis', 'fork', 'specialize'];

/** The built-in operator for each name. */
export const LIFECYCLE_OPERATORS: Readonly<Record<LifecycleOperatorName, LifecycleOperator>> = { genesis, fork, merge, prune, specialize };

/** Which operators a preset allows (a missing name counts as allowed). */
export type LifecycleSwitches = Partial<Record<LifecycleOperatorName, boolean>>;

/** A decision the planner dropped, and why. */
export interface SkippedDecision {
  readonly decision: LifecycleDecision;
  readonly because: string;
}

/** One window's plan: decisions to apply in order, and those dropped to keep the invariants. */
export interface LifecyclePlan {
  readonly applied: LifecycleDecision[];
  readonly skipped: SkippedDecision[];
}

/**
 * Plan one lifecycle window. Runs every operator allowed by both `enabled` and its config's
 * `enabled` flag, in `LIFECYCLE_ORDER`, each on the snapshot minus the agents retired by decisions
 * already accepted, and accepts decisions in that order while keeping these invariants (a
 * decision that would break one is skipped with a reason):
 * - after every accepted decision the active roster stays within
 *   [max(minAgents, teamSize + 1), maxAgents] (a roster already outside may only move back in);
 * - an agent takes part in at most one roster-changing decision (genesis/fork parent, merge
 *   partner, pruned);
 * - no decision names an agent retired earlier in the plan.
 * Pure and deterministic: the same context gives the same plan.
 */
export function planLifecycle(
  ctx: LifecycleContext,
  enabled: LifecycleSwitches = {},
  operators: Readonly<Record<LifecycleOperatorName, LifecycleOperator>> = LIFECYCLE_OPERATORS,
): LifecyclePlan {
  const floor = rosterFloor(ctx.bounds);
  const max = ctx.bounds.maxAgents;
  let size = activeRoster(ctx).length;
  const retired = new Set<string>();
  const changed = new Set<string>();
  const applied: LifecycleDecision[] = [];
  const skipped: SkippedDecision[] = [];
  for (const name of LIFECYCLE_ORDER) {
    if (enabled[name] === false || !ctx.config[name].enabled) continue;
    const view: LifecycleContext = retired.size === 0 ? ctx : { ...ctx, roster: ctx.roster.filter((a) => !retired.has(a.id)) };
    for (const d of operators[name](view)) {
      const because = check(d);
      if (because) {
        skipped.push({ decision: d, because });
        continue;
      }
      applied.push(d);
      size += rosterDelta(d);
      for (const id of retiredBy(d)) retired.add(id);
      if (rosterDelta(d) !== 0) for (const id of decisionAgents(d)) changed.add(id);
    }
  }
  return { applied, skipped };

  function check(d: LifecycleDecision): string | null {
    const agents = decisionAgents(d);
    const gone = agents.find((id) => retired.has(id));
    if (gone) return `${gone} retires earlier in this window`;
    const delta = rosterDelta(d);
    if (delta === 0) return null;
    const busy = agents.find((id) => changed.has(id));
    if (busy) return `${busy} already takes part in a roster change this window`;
    if (delta > 0 && size + 1 > max) return `roster would grow to ${size + 1}, above maxAgents ${max}`;
    if (delta < 0 && size - 1 < floor) {
      return `roster would shrink to ${size - 1}, below ${floor} (minAgents ${ctx.bounds.minAgents}, team size ${ctx.bounds.teamSize} + 1)`;
    }
    return null;
  }
}
