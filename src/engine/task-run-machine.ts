import { assign, fromPromise, setup } from 'xstate';
import type { Experience } from '../individual/agent-prompts';
import type { StructureResult } from '../team/structures/structure';
import type { Team } from '../team/team';
import {
  assembleTeam, executeStructure, gradeResult, reflectMembers, retrieveExperience,
  type Grading, type Reflection, type StageDeps,
} from './task-stages';

/** Everything one task run produced; the engine commits it to the pool in stream order. */
export interface TaskOutcome {
  readonly deps: StageDeps;
  readonly team: Team | null;
  readonly structure: string | null;
  readonly experience: ReadonlyMap<string, Experience>;
  readonly result: StructureResult | null;
  readonly grading: Grading | null;
  readonly reflections: readonly Reflection[];
  /** Set when a stage failed; the task is then recorded with reward 0, never dropped. */
  readonly error: { readonly stage: string; readonly message: string } | null;
}

interface Ctx {
  deps: StageDeps;
  team: Team | null;
  structure: string | null;
  experience: Map<string, Experience>;
  result: StructureResult | null;
  grading: Grading | null;
  reflections: Reflection[];
  error: { stage: string; message: string } | null;
}

const errorOf = (stage: string, error: unknown) => ({
  stage, message: error instanceof Error ? error.message : String(error),
});

/**
 * One task's run (xstate v5): assemble → choose → execute → grade → reflect → done.
 * Stages only read pool snapshots; the engine applies the outcome (competence, lessons) when it is
 * this task's turn to commit, so many runs can be in flight at once. Any stage failure ends in
 * `failed` with the error recorded. Stage actors can be swapped with `.provide()` in tests.
 */
export const taskRunMachine = setup({
  types: {
    input: {} as StageDeps,
    context: {} as Ctx,
    output: {} as TaskOutcome,
  },
  actors: {
    assemble: fromPromise<Team, StageDeps>(async ({ input }) => assembleTeam(input)),
    execute: fromPromise<{ result: StructureResult; experience: Map<string, Experience> }, { deps: StageDeps; team: Team; structure: string }>(
      async ({ input }) => {
        const experience = await retrieveExperience(input.deps, input.team);
        const result = await executeStructure(input.deps, input.team, input.structure, experience);
        return { result, experience };
      },
    ),
    grade: fromPromise<Grading, { deps: StageDeps; result: StructureResult }>(({ input }) => gradeResult(input.deps, input.result)),
    reflect: fromPromise<Reflection[], { deps: StageDeps; team: Team; result: StructureResult; grading: Grading; experience: Map<string, Experience> }>(
      ({ input }) => reflectMembers(input.deps, input.team, input.result, input.grading, input.experience),
    ),
  },
}).createMachine({
  id: 'task-run',
  context: ({ input }) => ({
    deps: input, team: null, structure: null, experience: new Map(), result: null, grading: null, reflections: [], error: null,
  }),
  initial: 'assemble',
  states: {
    assemble: {
      invoke: {
        src: 'assemble',
        input: ({ context }) => context.deps,
        onDone: { target: 'choose', actions: assign({ team: ({ event }) => event.output }) },
        onError: { target: 'failed', actions: assign({ error: ({ event }) => errorOf('assemble', event.error) }) },
      },
    },
    choose: {
      // Presets fix the structure for now; LeadLearn (team level) chooses here.
      always: { target: 'execute', actions: assign({ structure: ({ context }) => context.deps.preset.structure }) },
    },
    execute: {
      invoke: {
        src: 'execute',
        input: ({ context }) => ({ deps: context.deps, team: context.team!, structure: context.structure! }),
        onDone: {
          target: 'grade',
          actions: assign({ result: ({ event }) => event.output.result, experience: ({ event }) => event.output.experience }),
        },
        onError: { target: 'failed', actions: assign({ error: ({ event }) => errorOf('execute', event.error) }) },
      },
    },
    grade: {
      invoke: {
        src: 'grade',
        input: ({ context }) => ({ deps: context.deps, result: context.result! }),
        onDone: { target: 'reflect', actions: assign({ grading: ({ event }) => event.output }) },
        onError: { target: 'failed', actions: assign({ error: ({ event }) => errorOf('grade', event.error) }) },
      },
    },
    reflect: {
      invoke: {
        src: 'reflect',
        input: ({ context }) => ({
          deps: context.deps, team: context.team!, result: context.result!, grading: context.grading!, experience: context.experience,
        }),
        onDone: { target: 'done', actions: assign({ reflections: ({ event }) => event.output }) },
        onError: { target: 'failed', actions: assign({ error: ({ event }) => errorOf('reflect', event.error) }) },
      },
    },
    done: { type: 'final' },
    failed: { type: 'final' },
  },
  output: ({ context }) => ({ ...context }),
});
