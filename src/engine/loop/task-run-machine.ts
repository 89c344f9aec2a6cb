import { assign, fromPromise, setup } from 'xstate';
import type { Experience } from '../../individual/agent-prompts';
import type { Choice } from '../../team/choosers/chooser';
import type { StructureResult } from '../../team/structures/structure';
import type { Team } from '../../team/team';
import { isInfrastructureError, type InfraStage } from '../../core/infra-error';
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

type Ctx = { -readonly [K in keyof TaskOutcome]: TaskOutcome[K] };

/** The failure of a machine stage: an InfrastructureError keeps its own stage and cause. */
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

/**
 * One task's solve stage (xstate v5): assemble → choose → execute → grade → done.
 * Stages only read the pool as of the task's start version; the engine applies the outcome
 * (competence, synergy, the leadership entry) when it is this task's turn to commit, so many
 * runs can be in flight at once. Any stage failure ends in `failed` with the error recorded.
 * Stage actors can be swapped with `.provide()` in tests.
 */
export const taskRunMachine = setup({
  types: {
    input: {} as StageDeps,
    context: {} as Ctx,
    output: {} as TaskOutcome,
  },
  actors: {
    assemble: fromPromise<Team, StageDeps>(async ({ input }) => assembleTeam(input)),
    choose: fromPromise<KeyedChoice, { deps: StageDeps; team: Team }>(({ input }) => chooseStructure(input.deps, input.team)),
    execute: fromPromise<{ result: StructureResult; experience: Map<string, Experience> }, { deps: StageDeps; team: Team; structure: string }>(
      async ({ input }) => {
        const experience = await retrieveExperience(input.deps, input.team);
        const result = await executeStructure(input.deps, input.team, input.structure, experience);
        return { result, experience };
      },
    ),
    grade: fromPromise<Grading, { deps: StageDeps; result: StructureResult }>(({ input }) => gradeResult(input.deps, input.result)),
  },
}).createMachine({
  id: 'task-run',
  context: ({ input }) => ({
    deps: input, team: null, choice: null, experience: new Map(), result: null, grading: null, error: null,
  }),
  initial: 'assemble',
  states: {
    assemble: {
      invoke: {
        src: 'assemble',
        input: ({ context }) => context.deps,
        onDone: { target: 'choose', actions: assign({ team: ({ event }) => event.output }) },
        onError: { target: 'failed', actions: assign({ error: ({ event }) => errorOf('other', event.error) }) },
      },
    },
    choose: {
      invoke: {
        src: 'choose',
        input: ({ context }) => ({ deps: context.deps, team: context.team! }),
        onDone: { target: 'execute', actions: assign({ choice: ({ event }) => event.output }) },
        onError: { target: 'failed', actions: assign({ error: ({ event }) => errorOf('leadlearn', event.error) }) },
      },
    },
    execute: {
      invoke: {
        src: 'execute',
        input: ({ context }) => ({ deps: context.deps, team: context.team!, structure: context.choice!.structure }),
        // A member call that exhausted its retries is an outage, not an answer: the task fails
        // (its attempts are still logged) and is never graded.
        onDone: [{
          guard: ({ event }) => solveFailure(event.output.result) !== null,
          target: 'failed',
          actions: assign({
            result: ({ event }) => event.output.result, experience: ({ event }) => event.output.experience,
            error: ({ event }) => ({ stage: 'solve' as const, message: solveFailure(event.output.result)! }),
          }),
        }, {
          target: 'grade',
          actions: assign({ result: ({ event }) => event.output.result, experience: ({ event }) => event.output.experience }),
        }],
        onError: { target: 'failed', actions: assign({ error: ({ event }) => errorOf('solve', event.error) }) },
      },
    },
    grade: {
      invoke: {
        src: 'grade',
        input: ({ context }) => ({ deps: context.deps, result: context.result! }),
        onDone: { target: 'done', actions: assign({ grading: ({ event }) => event.output }) },
        onError: { target: 'failed', actions: assign({ error: ({ event }) => errorOf('grade', event.error) }) },
      },
    },
    done: { type: 'final' },
    failed: { type: 'final' },
  },
  output: ({ context }) => ({ ...context }),
});

/**
 * A task fails when a stage met an infrastructure failure (a member call out of retries, a
 * grader or sandbox error). It is never graded and updates nothing: no competence, synergy,
 * LeadLearn record, lesson or insight — an outage says nothing about agents or structures.
 */
export function taskFailed(out: TaskOutcome): boolean {
  return out.error !== null || !out.grading;
}
