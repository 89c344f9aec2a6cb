import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { generate, loadScenario, runScenario, type StructureDescriptor } from '../../src/index';
import { withOverrides } from '../../src/engine/scenario/scenario';

// A full collection on demand, in this worker only (no flag on the whole suite): the flag makes V8
// expose `gc` to contexts created after it is set.
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** Weak references to what each task's structure produced (its task and its result), by task index. */
const produced = new Map<number, { task: WeakRef<object>; result: WeakRef<object> }>();

/** The leader answers once; the result object is what the task's outcome carries to its commit. */
const probe: StructureDescriptor = {
  name: 'probe',
  description: 'you answer alone, once.',
  choosable: true,
  run: async (ctx) => {
    const leader = ctx.team.members[0]!;
    const attempt = await generate({ ...ctx, member: leader, experience: ctx.experience(leader.agent.id), step: 'solve', index: 0 });
    const result = {
      finalText: attempt.text || null,
      attempts: [attempt],
      memberAnswers: { [leader.agent.id]: { text: attempt.text, extracted: attempt.extracted } },
      disagreement: false,
    };
    produced.set(ctx.task.index, { task: new WeakRef(ctx.task), result: new WeakRef(result) });
    return result;
  },
};

describe('a finished task is not retained by the run', () => {
  it('its task and result become collectable once it is committed and its evolve stage applied', async () => {
    const loaded = withOverrides(loadScenario(path.resolve('scenarios/quickstart.json')), { team: { offered: ['probe'] } });
    const tasks = 30;
    let checked: number[] | null = null;
    await runScenario(loaded, {
      patch: { 'stream.tasks': tasks }, structures: [probe], report: false, outDir: mkdtempSync(path.join(tmpdir(), 'evo-retain-')),
      // Called after each commit: the last time, every task but the newest few is long finished.
      onProgress: (p) => {
        if (p.done !== tasks) return;
        gc();
        checked = [...produced].filter(([i, r]) => i < tasks - 5 && (r.task.deref() !== undefined || r.result.deref() !== undefined)).map(([i]) => i);
      },
    });
    expect(produced.size).toBeGreaterThan(tasks - 5);
    expect(checked).toEqual([]);
  });
});
