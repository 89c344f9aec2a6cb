import {
  LIFECYCLE_OPERATOR_KINDS, LIFECYCLE_OPERATORS, LIFECYCLE_ORDER, LIFECYCLE_PLAN, type AnyLifecycleOperator, type LifecycleDecision, type LifecycleOperatorName,
} from './index';
import { activeRoster, rosterFloor, type DecisionBase, type LifecycleContext, type LifecycleOperator } from './operator';

export { LIFECYCLE_OPERATORS, LIFECYCLE_ORDER };

/** The registered operator a decision came from (throws for an operator that is not registered). */
export function operatorOf(d: DecisionBase): AnyLifecycleOperator {
  const op = LIFECYCLE_OPERATOR_KINDS.get(d.operator);
  if (!op) throw new Error(`no lifecycle operator named "${d.operator}"`);
  return op;
}

/** Change in active-agent count if the decision is applied: +1 genesis/fork, −1 merge/prune, 0 specialize. */
export function rosterDelta(d: DecisionBase): -1 | 0 | 1 {
  return operatorOf(d).rosterDelta;
}

/** Agents a decision touches: parents, both merge partners, the pruned or specialized agent. */
export function decisionAgents(d: DecisionBase): string[] {
  return operatorOf(d).agents(d);
}

/** Agents a decision retires (the merged-away one, the pruned one). */
export function retiredBy(d: DecisionBase): string[] {
  return operatorOf(d).retires(d);
}

/** Which operators a preset allows (a missing name counts as allowed). */
export type LifecycleSwitches = Partial<Record<LifecycleOperatorName | (string & {}), boolean>>;

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

/** Planner inputs beyond the snapshot: which operators exist, and (tests) decision functions to use instead of theirs. */
export interface PlanOptions {
  /** The operators, in the order they run (default: the built-in ones by `planRank`). */
  readonly operators?: readonly AnyLifecycleOperator[];
  /** Decision functions by operator name, replacing the descriptors' own. */
  readonly decide?: Partial<Readonly<Record<string, LifecycleOperator<DecisionBase>>>>;
}

/**
 * Plan one lifecycle window. Runs every operator allowed by both `enabled` and its config's
 * `enabled` flag, in `planRank` order (`LIFECYCLE_ORDER` for the built-in ones), each on the
 * snapshot minus the agents retired by decisions already accepted, and accepts decisions in that order while keeping these invariants (a
 * decision that would break one is skipped with a reason):
 * - after every accepted decision the active roster stays within
 *   [max(minAgents, teamSize + 1), maxAgents] (a roster already outside may only move back in);
 * - an agent takes part in at most one roster-changing decision (genesis/fork parent, merge
 *   partner, pruned);
 * - no decision names an agent retired earlier in the plan.
 * Pure and deterministic: the same context gives the same plan.
 */
export function planLifecycle(ctx: LifecycleContext, enabled: LifecycleSwitches = {}, opts: PlanOptions = {}): LifecyclePlan {
  const operators = opts.operators ?? LIFECYCLE_PLAN;
  const settings = ctx.config as unknown as Readonly<Record<string, { readonly enabled?: boolean } | undefined>>;
  const floor = rosterFloor(ctx.bounds);
  const max = ctx.bounds.maxAgents;
  let size = activeRoster(ctx).length;
  const retired = new Set<string>();
  const changed = new Set<string>();
  const applied: LifecycleDecision[] = [];
  const skipped: SkippedDecision[] = [];
  for (const op of operators) {
    if (enabled[op.name] === false || settings[op.name]?.enabled === false) continue;
    const view: LifecycleContext = retired.size === 0 ? ctx : { ...ctx, roster: ctx.roster.filter((a) => !retired.has(a.id)) };
    for (const d of (opts.decide?.[op.name] ?? op.decide)(view) as LifecycleDecision[]) {
      const because = check(op, d);
      if (because) {
        skipped.push({ decision: d, because });
        continue;
      }
      applied.push(d);
      size += op.rosterDelta;
      for (const id of op.retires(d)) retired.add(id);
      if (op.rosterDelta !== 0) for (const id of op.agents(d)) changed.add(id);
    }
  }
  return { applied, skipped };

  function check(op: AnyLifecycleOperator, d: DecisionBase): string | null {
    const agents = op.agents(d);
    const gone = agents.find((id) => retired.has(id));
    if (gone) return `${gone} retires earlier in this window`;
    const delta = op.rosterDelta;
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
