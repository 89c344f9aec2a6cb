import { describe, expect, it } from 'vitest';
import { InfrastructureError } from '../../src/core/infra-error';
import { runTask, TASK_STAGES, type KeyedChoice } from '../../src/engine/loop/task-run';
import type { StageDeps } from '../../src/engine/loop/task-stages';
import type { StructureResult } from '../../src/team/structures/structure';
import type { Team } from '../../src/team/team';

const team = { members: [] } as unknown as Team;
const attempt = (error?: string) => ({
  agentId: 'a1', role: 'anchor' as const, step: 'solve', index: 0, text: error ? '' : '\\boxed{4}', extracted: error ? null : '4',
  usage: { promptTokens: 1, completionTokens: 1 }, ...(error ? { error } : {}),
});
const result = (attempts: ReturnType<typeof attempt>[]): StructureResult => ({ finalText: '\\boxed{4}', attempts, memberAnswers: {}, disagreement: false });

/** A task run with every stage faked; `grade` and `execute` as given. */
function run(execute: () => Promise<StructureResult>, grade: () => Promise<never> | Promise<unknown>) {
  return runTask({} as StageDeps, {
    ...TASK_STAGES,
    assemble: async () => team,
    choose: async (): Promise<KeyedChoice> => ({ structure: 'voting', source: 'fixed', retrieved: [], why: '', key: new Float32Array(1) }),
    execute: async () => ({ result: await execute(), experience: new Map() }),
    grade: grade as never,
  });
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

  it('a stage that throws ends the run at that stage with what the earlier stages made, and never rejects', async () => {
    const choose = async (): Promise<KeyedChoice> => { throw new Error('bank unreadable'); };
    const out = await runTask({} as StageDeps, { ...TASK_STAGES, assemble: () => team, choose });
    expect(out.error).toEqual({ stage: 'leadlearn', message: 'bank unreadable' });
    expect(out.team).toBe(team);
    expect([out.choice, out.result, out.grading]).toEqual([null, null, null]);
    const early = await runTask({} as StageDeps, { ...TASK_STAGES, assemble: () => { throw new Error('empty roster'); } });
    expect(early.error).toEqual({ stage: 'other', message: 'empty roster' });
    expect(early.team).toBeNull();
  });

  it('a run that succeeds carries every stage\'s product and no error', async () => {
    const out = await run(async () => result([attempt()]), async () => ({ grade: { score: 1 } }));
    expect(out.error).toBeNull();
    expect(out.team).toBe(team);
    expect(out.choice?.structure).toBe('voting');
    expect(out.grading).toEqual({ grade: { score: 1 } });
  });
});
