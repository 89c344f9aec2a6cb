import type { Knob } from '../../core/knob';
import { Registry } from '../../core/registry';
import { forkOperator } from './fork';
import { genesisOperator } from './genesis';
import { mergeOperator } from './merge';
import type { DecisionBase, LifecycleOperator, LifecycleOperatorDescriptor } from './operator';
import { pruneOperator } from './prune';
import { specializeOperator } from './specialize';

/**
 * The built-in lifecycle operators, one descriptor file each. This order is the order of their
 * settings in a scenario's `lifecycle` block and of the summary's `lineage` counters; the order
 * they run in within a window is their `planRank` (`LIFECYCLE_ORDER`).
 */
export const LIFECYCLE_OPERATOR_LIST = [genesisOperator, forkOperator, mergeOperator, pruneOperator, specializeOperator] as const;

type BuiltinOperator = (typeof LIFECYCLE_OPERATOR_LIST)[number];
type DecisionOf<O> = O extends LifecycleOperatorDescriptor<infer D, infer _S> ? D : never;

/** One lifecycle decision of a built-in operator. */
export type LifecycleDecision = DecisionOf<BuiltinOperator>;
/** Names of the built-in operators. */
export type LifecycleOperatorName = BuiltinOperator['name'];

/** Every operator, as the planner and the window use them (descriptors are bivariant in their decision type). */
export type AnyLifecycleOperator = LifecycleOperatorDescriptor<DecisionBase>;

/** The operators of this process: the built-in ones, then those `registerLifecycleOperator` added. */
export const LIFECYCLE_OPERATOR_KINDS = new Registry<AnyLifecycleOperator>('lifecycle operator', LIFECYCLE_OPERATOR_LIST as readonly AnyLifecycleOperator[]);

/**
 * Add a lifecycle operator for every later run of this process: its settings join the scenario's
 * `population.lifecycle.<name>`, it runs in its `planRank` place and counts in the summary's
 * `lineage` (the same object again does nothing).
 */
export function registerLifecycleOperator(d: AnyLifecycleOperator): void {
  LIFECYCLE_OPERATOR_KINDS.register(d);
}

/** The registered operators, in the order they run within a window (ascending `planRank`; follows registration). */
export const LIFECYCLE_PLAN: readonly AnyLifecycleOperator[] = [...LIFECYCLE_OPERATOR_LIST].sort((a, b) => a.planRank - b.planRank);

/** Names of the operators in the order they run: removals first (prune, then merge), then growth (genesis, fork), then specialize. */
export const LIFECYCLE_ORDER: readonly LifecycleOperatorName[] = LIFECYCLE_PLAN.map((d) => d.name as LifecycleOperatorName);

/** The decision function for each name (follows registration). */
export const LIFECYCLE_OPERATORS = Object.fromEntries(LIFECYCLE_OPERATOR_LIST.map((d) => [d.name, d.decide])) as Readonly<Record<LifecycleOperatorName, LifecycleOperator<LifecycleDecision>>>;

LIFECYCLE_OPERATOR_KINDS.onRegister((d) => {
  const plan = LIFECYCLE_PLAN as AnyLifecycleOperator[];
  plan.push(d);
  plan.sort((a, b) => a.planRank - b.planRank);
  (LIFECYCLE_ORDER as string[]).splice(0, Infinity, ...plan.map((x) => x.name));
  (LIFECYCLE_OPERATORS as Record<string, unknown>)[d.name] = d.decide;
  (LIFECYCLE_KNOBS as Knob[]).push(...operatorKnobs(d));
});

/** Lifecycle decisions applied, by operator: every counter at 0, in registry order (the summary's `lineage`). */
export function emptyLineage(): Record<LifecycleOperatorName, number> {
  return Object.fromEntries(LIFECYCLE_OPERATOR_KINDS.list().map((d) => [d.name, 0])) as Record<LifecycleOperatorName, number>;
}

/**
 * The lifecycle's settings a meta-editor may change between segments: the window's own, then each
 * operator's (declared in its file, at `population.lifecycle.<name>.<setting>`).
 */
export const LIFECYCLE_KNOBS: readonly Knob[] = [
  { kind: 'int', path: 'population.lifecycle.every', min: 20, max: 400, description: 'tasks between lifecycle windows' },
  { kind: 'text', path: 'population.lifecycle.personaNote', maxLength: 300, description: 'added to the persona writer\'s instructions' },
  ...LIFECYCLE_OPERATOR_LIST.flatMap(operatorKnobs),
];

/** An operator's knobs at their scenario paths. */
function operatorKnobs(d: AnyLifecycleOperator): Knob[] {
  return (d.knobs ?? []).map((k) => ({ ...k, path: `population.lifecycle.${d.name}.${k.path}` }));
}
