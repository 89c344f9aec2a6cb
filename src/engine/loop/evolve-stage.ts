import type { Experience } from '../../individual/agent-prompts';
import type { Reflection } from '../../individual/reflection';
import { isInfrastructureError, type InfraStage } from '../../core/infra-error';
import { inSpan, inTraceContextOf, tracingEnabled } from '../../core/tracing/tracing';
import { ATTR_STAGE, ATTR_TASK_ID } from '../../core/tracing/semconv';
import type { LeadershipNote } from '../../team/leadlearn/leadership-note';
import { dream, leadershipNote, reflectMembers, type KeyedDream } from './task-stages';
import { taskFailed, type TaskOutcome } from './task-run';

/**
 * What one task's evolve stage produced: each member's reflection, the leader's note and CoDream's
 * session. Computed off the critical path from the task's solve outcome; `version` is the pool
 * version it was computed against (the version the task's solve commit made), so its staleness at
 * application is the number of updates applied in between.
 */
export interface EvolveOutcome {
  readonly out: TaskOutcome;
  readonly version: number;
  readonly reflections: readonly Reflection[];
  readonly note: LeadershipNote | null;
  /** CoDream's session, when it fired (its insights are routed when the outcome is applied). */
  readonly dream: KeyedDream | null;
  /** Set when a stage of it failed for infrastructure reasons: nothing of it is applied. */
  readonly error: { readonly stage: InfraStage; readonly message: string } | null;
}

/**
 * The version gap of an evolve outcome applied by the update that made pool version `appliedAt`:
 * the pool updates applied between its computation and its application.
 */
export const evolveGap = (evo: Pick<EvolveOutcome, 'version'>, appliedAt: number): number => appliedAt - 1 - evo.version;

const failure = (stage: InfraStage, error: unknown) => isInfrastructureError(error)
  ? { stage: error.stage, message: error.causeText }
  : { stage, message: error instanceof Error ? error.message : String(error) };

/**
 * The evolve stage of one graded task: reflection and the leader's note side by side, then CoDream
 * (only when it fires). A failed task has no evolve stage (it updates nothing).
 */
export function runEvolve(out: TaskOutcome, version: number): Promise<EvolveOutcome> {
  // With tracing on: the evolve span is a child of the task's span (started after it ended: it runs off the critical path).
  if (!tracingEnabled()) return evolveStages(out, version);
  return inTraceContextOf(out.deps, () => inSpan('evolve', { [ATTR_STAGE]: 'evolve', [ATTR_TASK_ID]: out.deps.task.id }, () => evolveStages(out, version)));
}

const span = <T>(name: string, fn: () => Promise<T>): Promise<T> => inSpan(name, { [ATTR_STAGE]: name }, fn);

async function evolveStages(out: TaskOutcome, version: number): Promise<EvolveOutcome> {
  const none: EvolveOutcome = { out, version, reflections: [], note: null, dream: null, error: null };
  if (taskFailed(out) || !out.team || !out.result || !out.choice) return none;
  const d = out.deps;
  const experience = out.experience as Map<string, Experience>;
  let reflections: Reflection[];
  let note: LeadershipNote | null;
  try {
    [reflections, note] = await Promise.all([
      span('reflect', () => reflectMembers(d, out.team!, out.result!, out.grading!, experience)),
      span('leadlearn note', () => leadershipNote(d, out.team!, out.choice!.structure, out.grading!, out.result!)),
    ]);
  } catch (e) {
    return { ...none, error: failure('reflect', e) };
  }
  try {
    const session = await span('codream', () => dream(d, out.team!, out.result!, out.grading!, experience));
    return { out, version, reflections, note, dream: session, error: null };
  } catch (e) {
    return { out, version, reflections, note, dream: null, error: failure('codream', e) };
  }
}
