import { describe, expect, it } from 'vitest';
import type { SimParams } from '../../src/index';
import { algebraSpec as spec, algebraTask as task } from '../fixtures/algebra-niche';
import { buildSolvePrompt } from '../../src/individual/agent-prompts';
import type { ArchiveEntry } from '../../src/individual/archive';
import { readPrompt } from '../../src/sim/prompt-reader';
import { SimModel } from '../../src/sim/sim-model';
import { SimSideChannel } from '../../src/sim/side-channel';
import { foreignLessons } from '../../src/sim/responders/mislead';
import { strategyLesson } from '../../src/sim/responders/reflect-responder';

const persona = 'You are a careful problem solver.';
const entry = (text: string): ArchiveEntry => ({
  id: text, text, niche: 'algebra', level: 'lesson', source: 'reflection', taskId: null, poolVersion: 0, key: new Float32Array([1, 0, 0, 0]),
});
const FAMILIES = { taskFamilies: 3, strategiesPerNiche: 12 };

/** For task i (as the world shows it): lessons learnt on another problem type that name strategies it does not need. */
function foreign(sim: SimModel, i: number, count: number): ArchiveEntry[] {
  const t = sim.world.present(task(i));
  const f = sim.world.familyShown('algebra', t.question)!;
  const other = sim.world.familyCue('algebra', (f + 1) % 3);
  const need = new Set(sim.world.required('algebra', t.id, 3, t.question).map((s) => s.phrase));
  return sim.world.nicheStrategies('algebra').filter((s) => !need.has(s.phrase)).slice(0, count)
    .map((s) => entry(strategyLesson(s, `Algebra, problems of type ${other}`)));
}

async function accuracy(params: Partial<SimParams>, lessons: (sim: SimModel, i: number) => ArchiveEntry[], n = 400) {
  const side = new SimSideChannel();
  const sim = new SimModel({ seed: 3, sideChannel: side, params: { malformed: 0, ...FAMILIES, ...params } });
  let right = 0;
  for (let i = 0; i < n; i++) {
    const t = sim.world.present(task(i));
    side.taskStarted(t, spec);
    const out = await sim.complete({ messages: buildSolvePrompt(persona, spec, t, { lessons: lessons(sim, i), meta: [] }), stage: 'solve', taskId: t.id, seedKey: `s/${i}` });
    if (/\\boxed\{4\}/.test(out.text)) right++;
  }
  return right / n;
}

describe('sharing that has a cost (foreignMislead, misleadCost)', () => {
  it('counts only lessons of another type or area that name nothing the task needs', () => {
    const sim = new SimModel({ seed: 3, params: FAMILIES });
    const t = sim.world.present(task(5));
    const type = sim.world.problemType('algebra', t.question)!;
    const need = sim.world.required('algebra', t.id, 3, t.question);
    const spare = sim.world.nicheStrategies('algebra').filter((s) => !need.some((r) => r.phrase === s.phrase));
    const lessons = [
      ...foreign(sim, 5, 2), // another type, useless here: counted
      entry(strategyLesson(spare[0]!, `Algebra, ${type}`)), // its own type: not counted
      entry(strategyLesson(spare[1]!, 'Geometry')), // another area: counted
      entry(strategyLesson(need[0]!, 'Geometry')), // another area but names a strategy it needs: not counted
      entry('Re-read the question.'), // names no strategy: not counted
    ];
    const prompt = readPrompt(buildSolvePrompt(persona, spec, t, { lessons, meta: [] }));
    expect(foreignLessons(sim.world, prompt, t, spec)).toBe(3);
  });

  it('foreign lessons cost accuracy only when they mislead; at 0 they change nothing', async () => {
    const none = () => [];
    const three = (sim: SimModel, i: number) => foreign(sim, i, 3);
    const bare = await accuracy({}, none);
    expect(await accuracy({}, three)).toBe(bare);
    const misled = await accuracy({ foreignMislead: 1, misleadCost: 1 }, three);
    expect(misled).toBeLessThan(bare - 0.15);
    const some = await accuracy({ foreignMislead: 0.3, misleadCost: 1 }, three);
    expect(some).toBeGreaterThan(misled);
    expect(some).toBeLessThan(bare);
  });
});
