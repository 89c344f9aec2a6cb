import type { Knob, SettingPath } from '../../core/knob';
import type { ActorRefFrom } from 'xstate';
import { z } from 'zod';
import type { Rng } from '../../core/rng';
import type { AgentView } from '../../individual/agent-view';
import type { LanguageModel } from '../../llm/model';
import type { EventLog } from '../../store/event-log';
import type { NicheSpec } from '../../tasks/niche';
import type { supervisorMachine } from '../supervisor-machine';

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
  /**
   * Triggers (`lifecycle-config.ts`): the window's own settings, and each operator's block under its
   * name, which that operator reads as its own config type (the window validated it with its schema).
   */
  readonly config: LifecycleSettings;
  /** Words that name each niche besides its id, its title first, then its keywords: to tell whether a persona already aims at it. */
  readonly nicheTerms?: Readonly<Record<string, readonly string[]>>;
  /**
   * Niche → consecutive lifecycle windows, up to and including this one, in which it had no
   * specialist. Absent: the operators treat every niche without a specialist as persistently so.
   */
  readonly unspecializedFor?: Readonly<Record<string, number>>;
  /** Seeded randomness for operators that choose; the five built-in ones are deterministic and ignore it. */
  readonly rng: Rng;
}

/** What every lifecycle decision carries; each operator's own decision type adds the agents and niche it names. */
export interface DecisionBase {
  /** The operator's name (`LifecycleOperatorDescriptor.name`). */
  readonly operator: string;
  /** Human-readable; quotes the numbers that triggered the decision. */
  readonly reason: string;
}

/**
 * The lifecycle settings as an operator reads them: the window's own (schedule, roster bounds, who
 * counts as a specialist) and each operator's block by name. Declared here, apart from the schema
 * built from the registry, so the operator contract does not depend on the operators.
 */
export type LifecycleSettings = {
  readonly every: number;
  readonly minAgents: number;
  readonly maxAgents: number;
  readonly specialist: { readonly margin: number; readonly minExposure: number; readonly stableWindows: number };
  readonly personaNote?: string | undefined;
} & { readonly [operator: string]: unknown };

/**
 * A lifecycle operator's decision function: a pure function from a pool snapshot to decisions.
 * Contract: no I/O, no model calls, does not mutate `ctx`; same `ctx` → same decisions; respects
 * its own `maxPerWindow` and the roster bounds given the roster it was shown (the planner
 * re-checks bounds across operators).
 */
export type LifecycleOperator<D extends DecisionBase = DecisionBase> = (ctx: LifecycleContext) => D[];

/** What applying one decision may use: the supervisor (the only writer of agents), the model for personas, the log. */
export interface ApplyContext {
  readonly supervisor: ActorRefFrom<typeof supervisorMachine>;
  readonly model: LanguageModel;
  readonly log: EventLog;
  readonly specs: ReadonlyMap<string, NicheSpec>;
  readonly window: number;
  readonly nichesSeen: readonly string[];
  readonly c0: number;
  readonly eta: number;
  /** The pool version the window's changes take effect at. */
  readonly version: number;
  /** Added to the persona writer's instructions (`population.lifecycle.personaNote`); none by default. */
  readonly personaNote?: string;
  /** A fresh agent id (agent-NN), one per call. */
  newId(): string;
}

/**
 * A lifecycle operator, described in one file: when it fires and why (`decide`, whose decisions
 * quote the numbers in `reason`), its trigger settings with their defaults (`config`, read at
 * `lifecycle.<name>` of a scenario), what a decision does to the roster, and how it is applied.
 * `name` is also the decision's `operator`, the event's `operator` and the summary's `lineage`
 * counter. The registry is `src/population/lifecycle/index.ts`.
 */
export interface LifecycleOperatorDescriptor<D extends DecisionBase = DecisionBase, S extends z.ZodType = z.ZodType> {
  readonly name: D['operator'];
  /**
   * Where the operator runs within a window (lower first). Each operator sees the roster without
   * the agents retired before it; the built-in ones run removals first, then growth, then personas.
   */
  readonly planRank: number;
  /** Trigger settings; every field has a default and the object has an `enabled` switch. */
  readonly config: S;
  /** The decision function. */
  decide(ctx: LifecycleContext): D[];
  /** Change in active-agent count when a decision is applied (+1 grows, −1 retires one, 0 keeps). */
  readonly rosterDelta: -1 | 0 | 1;
  /** Agents a decision touches (parents, partners, the pruned or specialized agent). */
  agents(d: D): string[];
  /** Agents a decision retires. */
  retires(d: D): string[];
  /** Apply a decision through the supervisor and log what changed; returns the agents involved (new ones included). */
  apply(w: ApplyContext, d: D): Promise<string[]>;
  /**
   * Its trigger settings a meta-editor may change between segments, with bounds tighter than the
   * schema's where a value would make it fire every window; paths relative to `population.lifecycle.<name>`
   * (declared with `configKnobs`, so a path `config` does not have fails to compile).
   */
  readonly knobs?: readonly Knob[];
}

/** An operator's knobs, their paths typed by its trigger config's schema (relative to its block). */
export function configKnobs<S extends z.ZodType>(_config: S, knobs: readonly Knob<SettingPath<z.infer<S>>>[]): readonly Knob[] {
  return knobs;
}

/** A setting in [0, 1] (margins, competences, overlaps), as every operator's trigger config uses. */
export const unitInterval = () => z.number().min(0).max(1);

/** Smallest roster allowed: at least `minAgents` and strictly larger than the team. */
export function rosterFloor(bounds: RosterBounds): number {
  return Math.max(bounds.minAgents, bounds.teamSize + 1);
}

/** The active agents of the snapshot (operators are shown active agents, but never trust a caller). */
export function activeRoster(ctx: LifecycleContext): AgentView[] {
  return ctx.roster.filter((a) => a.status === 'active');
}

/** A number in a reason string: three decimals, no trailing zeros. */
export function fmt(x: number): string {
  return String(Math.round(x * 1000) / 1000);
}
