import type { Rng } from '../../core/rng';
import type { AgentView } from '../../individual/agent-view';
import type { LifecycleConfig } from './lifecycle-config';

/** Hard limits on the number of active agents. */
export interface RosterBounds {
  readonly minAgents: number;
  readonly maxAgents: number;
  /** Agents per team; the roster must stay strictly larger. */
  readonly teamSize: number;
}

/** What a lifecycle operator sees: a snapshot of the pool at one window. Never mutated. */
export interface LifecycleContext {
  /** Active agents, spawn order (spawn order is every tie rule's last word). */
  readonly roster: readonly AgentView[];
  /** Niches seen so far in the stream, in first-seen order: the space competence profiles live in. */
  readonly niches: readonly string[];
  /** Tasks per niche in the last window (recurrence). */
  readonly recentNiches: Readonly<Record<string, number>>;
  /** Lifecycle window index (1, 2, …). */
  readonly window: number;
  readonly poolVersion: number;
  /** Competence of an unseen niche. */
  readonly c0: number;
  /** Authoritative bounds (the integrator derives them from `config` and the team size). */
  readonly bounds: RosterBounds;
  /** Triggers; see `lifecycle-config.ts`. */
  readonly config: LifecycleConfig;
  /** Words that name each niche besides its id (title, keywords), to tell whether a persona already aims at it. */
  readonly nicheTerms?: Readonly<Record<string, readonly string[]>>;
  /**
   * Niche → consecutive lifecycle windows, up to and including this one, in which it had no
   * specialist. Absent: the operators treat every niche without a specialist as persistently so.
   */
  readonly unspecializedFor?: Readonly<Record<string, number>>;
  /** Seeded randomness for operators that choose; the five built-in ones are deterministic and ignore it. */
  readonly rng: Rng;
}

/** One lifecycle decision; `reason` is human-readable and quotes the numbers that triggered it. */
export type LifecycleDecision =
  | { operator: 'genesis'; parent: string; niche: string; reason: string }
  | { operator: 'fork'; parent: string; niche: string; reason: string }
  | { operator: 'merge'; keep: string; retire: string; reason: string }
  | { operator: 'prune'; agent: string; reason: string }
  | { operator: 'specialize'; agent: string; niche: string; reason: string };

/** Names of the operators. */
export type LifecycleOperatorName = LifecycleDecision['operator'];

/**
 * A lifecycle operator: a pure function from a pool snapshot to decisions. Contract: no I/O, no
 * model calls, does not mutate `ctx`; same `ctx` → same decisions; respects its own
 * `maxPerWindow` and the roster bounds given the roster it was shown (the planner re-checks
 * bounds across operators).
 */
export type LifecycleOperator = (ctx: LifecycleContext) => LifecycleDecision[];

/** Smallest roster allowed: at least `minAgents` and strictly larger than the team. */
export function rosterFloor(bounds: RosterBounds): number {
  return Math.max(bounds.minAgents, bounds.teamSize + 1);
}

/** Change in active-agent count if the decision is applied: +1 genesis/fork, −1 merge/prune, 0 specialize. */
export function rosterDelta(d: LifecycleDecision): -1 | 0 | 1 {
  switch (d.operator) {
    case 'genesis':
    case 'fork':
      return 1;
    case 'merge':
    case 'prune':
      return -1;
    case 'specialize':
      return 0;
  }
}

/** Agents a decision touches: parents, both merge partners, the pruned or specialized agent. */
export function decisionAgents(d: LifecycleDecision): string[] {
  switch (d.operator) {
    case 'genesis':
    case 'fork':
      return [d.parent];
    case 'merge':
      return [d.keep, d.retire];
    case 'prune':
    case 'specialize':
      return [d.agent];
  }
}

/** Agents a decision retires (the merged-away one, the pruned one). */
export function retiredBy(d: LifecycleDecision): string[] {
  if (d.operator === 'merge') return [d.retire];
  if (d.operator === 'prune') return [d.agent];
  return [];
}

/** The active agents of the snapshot (operators are shown active agents, but never trust a caller). */
export function activeRoster(ctx: LifecycleContext): AgentView[] {
  return ctx.roster.filter((a) => a.status === 'active');
}

/** A number in a reason string: three decimals, no trailing zeros. */
export function fmt(x: number): string {
  return String(Math.round(x * 1000) / 1000);
}
