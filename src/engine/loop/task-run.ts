import type { Experience } from '../../individual/agent-prompts';
import type { Choice } from '../../team/choosers/chooser';
import type { StructureResult } from '../../team/structures/structure';
import type { Team } from '../../team/team';
import { isInfrastructureError, type InfraStage } from '../../core/infra-error';
import { inSpan, keepTraceContext, tracingEnabled } from '../../core/tracing/tracing';
import { ATTR_NICHE, ATTR_STAGE, ATTR_STRUCTURE, ATTR_TASK_ID } from '../../core/tracing/semconv';
import {
  assembleTeam, chooseStructure, executeStructure, gradeResult, retrieveExperience, type Grading, type StageDeps,
} from './task-stages';

/** The structure choice plus the bank key it was made with. */
export type KeyedChoice = Choice & { readonly key: Float32Array };

/**
 * Everything one task's solve stage produced; the engine commits its reward-driven updates
 * (competence, synergy, the LeadLearn outcome) in stream order. Reflection, the leader's note and
 * CoDream come after, from the evolve stage (evolve-stage.ts).
 */
export interface TaskOutcome {
  readonly deps: StageDeps;
  readonly team: Team | null;
  readonly choice: KeyedChoice | null;
  readonly experience: ReadonlyMap<string, Experience>;
  readonly result: StructureResult | null;
  readonly grading: Grading | null;
  /**
   * Set when a stage failed (an infrastructure failure: a model call out of retries, a grader or
   * sandbox error, or a bug). The task is then recorded as failed, never graded, never dropped.
   */
  readonly error: { readonly stage: InfraStage; readonly message: string } | null;
}

/** The failure of a stage: an InfrastructureError keeps its own stage and cause. */
const errorOf = (stage: InfraStage, error: unknown) => isInfrastructureError(error)
  ? { stage: error.stage, message: error.causeText }
  : { stage, message: error instanceof Error ? error.message : String(error) };

/** The first member call of a structure that failed after its retries, as the task's failure cause (null: none failed). */
export function solveFailure(result: StructureResult): string | null {
  const failed = result.attempts.filter((a) => a.error !== undefined);
  if (failed.length === 0) return null;
  const a = failed[0]!;
  return `${failed.length} of ${result.attempts.length} member calls failed; first: ${a.agentId} ${a.step}: ${a.error}`;
}

/** The four stages of a task run, one function each; tests swap any of them (`{ ...TASK_STAGES, grade }`). */
export interface TaskStages {
  assemble(deps: StageDeps): Team | Promise<Team>;
  choose(deps: StageDeps, team: Team): Promise<KeyedChoice>;
  execute(deps: StageDeps, team: Team, structure: string): Promise<{ result: StructureResult; experience: Map<string, Experience> }>;
  grade(deps: StageDeps, result: StructureResult): Promise<Grading>;
}

/** The stages a run uses. */
export const TASK_STAGES: TaskStages = {
  assemble: assembleTeam,
  choose: chooseStructure,
  execute: async (deps, team, structure) => {
    const experience = await retrieveExperience(deps, team);
    return { result: await executeStructure(deps, team, structure, experience), experience };
  },
  grade: gradeResult,
};

/**
 * One task's solve stage: assemble → choose → execute → grade → done, or `failed` at the first
 * stage that throws (the error recorded with its stage; the outcome keeps what the earlier stages
 * made). Stages only read the pool as of the task's start version; the engine applies the outcome
 * (competence, synergy, the leadership entry) when it is this task's turn to commit, so many runs
 * can be in flight at once. Never rejects.
 *
 * A plain async function, not an actor: a task run owns no state another party sends events to
 * (its stages read snapshots; the pool's owners, the supervisor and the agent actors, take its
 * outcome as events at commit). As an xstate actor it was created, started and stopped per task,
 * with a child actor per stage, and that was half of `single-agent`'s CPU (docs/benchmarks.md#speed).
 */
export function runTask(deps: StageDeps, stages: TaskStages = TASK_STAGES): Promise<TaskOutcome> {
  // With tracing on (--otel): a span per task and per stage; its context is kept for the task's evolve stage.
  if (!tracingEnabled()) return runStages(deps, stages);
  return inSpan(`task ${deps.task.id}`, { [ATTR_TASK_ID]: deps.task.id, [ATTR_NICHE]: deps.task.niche }, async (set) => {
    keepTraceContext(deps);
    const out = await runStages(deps, stages);
    set({ 'evochamber.task.status': out.error ? 'failed' : 'graded', ...(out.grading ? { 'evochamber.reward': out.grading.team.reward } : {}), ...(out.choice ? { [ATTR_STRUCTURE]: out.choice.structure } : {}) });
    return out;
  });
}

/** A stage's span (a plain call when tracing is off). */
const stage = <T>(name: string, fn: () => T | Promise<T>): Promise<T> => (tracingEnabled() ? inSpan(name, { [ATTR_STAGE]: name }, async () => fn()) : Promise.resolve(fn()));

async function runStages(deps: StageDeps, stages: TaskStages): Promise<TaskOutcome> {
  let team: Team;
  try {
    team = await stage('assemble', () => stages.assemble(deps));
  } catch (e) {
    return outcome(deps, { error: errorOf('other', e) });
  }
  let choice: KeyedChoice;
  try {
    choice = await stage('choose', () => stages.choose(deps, team));
  } catch (e) {
    return outcome(deps, { team, error: errorOf('leadlearn', e) });
  }
  let result: StructureResult;
  let experience: Map<string, Experience>;
  try {
    ({ result, experience } = await inSpan(`solve ${choice.structure}`, { [ATTR_STAGE]: 'solve', [ATTR_STRUCTURE]: choice.structure }, () => stages.execute(deps, team, choice.structure)));
  } catch (e) {
    return outcome(deps, { team, choice, error: errorOf('solve', e) });
  }
  // A member call that exhausted its retries is an outage, not an answer: the task fails
  // (its attempts are still logged) and is never graded.
  const failure = solveFailure(result);
  if (failure !== null) return outcome(deps, { team, choice, result, experience, error: { stage: 'solve', message: failure } });
  try {
    return outcome(deps, { team, choice, result, experience, grading: await stage('grade', () => stages.grade(deps, result)) });
  } catch (e) {
    return outcome(deps, { team, choice, result, experience, error: errorOf('grade', e) });
  }
}

/** An outcome with what the stages made; the rest null (no experience: empty). */
function outcome(deps: StageDeps, got: Partial<Omit<TaskOutcome, 'deps'>>): TaskOutcome {
  return {
    deps, team: got.team ?? null, choice: got.choice ?? null, experience: got.experience ?? new Map(),
    result: got.result ?? null, grading: got.grading ?? null, error: got.error ?? null,
  };
}

/**
 * A task fails when a stage met an infrastructure failure (a member call out of retries, a
 * grader or sandbox error). It is never graded and updates nothing: no competence, synergy,
 * LeadLearn record, lesson or insight — an outage says nothing about agents or structures.
 */
export function taskFailed(out: TaskOutcome): boolean {
  return out.error !== null || !out.grading;
}
