import { describe, expect, it } from 'vitest';
import { createActor, fromPromise, toPromise } from 'xstate';
import { InfrastructureError } from '../../src/core/infra-error';
import { taskRunMachine, type KeyedChoice } from '../../src/engine/loop/task-run-machine';
import type { StageDeps } from '../../src/engine/loop/task-stages';
import type { StructureResult } from '../../src/team/structures/structure';
import type { Team } from '../../src/team/team';

const team = { members: [] } as unknown as Team;
const attempt = (error?: string) => ({
  agentId: 'a1', role: 'anchor' as const, step: 'solve', index: 0, text: error ? '' : '\\boxed{4}', extracted: error ? null : '4',
  usage: { promptTokens: 1, completionTokens: 1 }, ...(error ? { error } : {}),
});
const result = (attempts: ReturnType<typeof attempt>[]): StructureResult => ({ finalText: '\\boxed{4}', attempts, memberAnswers: {}, disagreement: false });

/** The task-run machine with every stage faked; `grade` and `execute` as given. */
function run(execute: () => Promise<StructureResult>, grade: () => Promise<never> | Promise<unknown>) {
  const machine = taskRunMachine.provide({
    actors: {
      assemble: fromPromise(async () => team),
      choose: fromPromise(async (): Promise<KeyedChoice> => ({ structure: 'voting', source: 'fixed', retrieved: [], why: '', key: new Float32Array(1) })),
      execute: fromPromise(async () => ({ result: await execute(), experience: new Map() })),
      grade: fromPromise(grade as never),
    },
  });
  const actor = createActor(machine, { input: {} as StageDeps });
  const done = toPromise(actor);
  actor.start();
  return done;
}

describe('task run: infrastructure failures', () => {
  it('a member call out of retries fails the task at the solve stage before grading, keeping its attempts', async () => {
    let graded = false;
    const out = await run(async () => result([attempt(), attempt('503 after 2 attempts')]), async () => { graded = true; return {}; });
    expect(graded).toBe(false);
    expect(out.error).toMatchObject({ stage: 'solve' });
    expect(out.error!.message).toContain('1 of 2 member calls failed');
    expect(out.result!.attempts).toHaveLength(2);
    expect(out.grading).toBeNull();
  });

  it('a grader or sandbox failure keeps its own stage and cause', async () => {
    const out = await run(async () => result([attempt()]), async () => { throw new InfrastructureError('grade', 'sandbox pool down'); });
    expect(out.error).toEqual({ stage: 'grade', message: 'sandbox pool down' });
    expect(out.grading).toBeNull();
  });
});
