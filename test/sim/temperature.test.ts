import { describe, expect, it } from 'vitest';
import { type NicheSpec, type Task } from '../../src/index';
import { buildSolvePrompt } from '../../src/individual/agent-prompts';
import { SimModel } from '../../src/sim/sim-model';
import { SimSideChannel } from '../../src/sim/side-channel';
import { promptShare } from '../../src/sim/temperature';

const spec: NicheSpec = {
  id: 'algebra', domain: 'math', title: 'Algebra', description: 'solve for x', keywords: ['algebra', 'equations'],
  generator: 'algebra', difficulties: [1, 2, 3], answerFormat: 'Give the final answer as \\boxed{...}.',
};
const task = (i: number): Task => ({
  id: `algebra-${i}`, index: i, niche: 'algebra', domain: 'math', difficulty: 2, block: 0,
  question: `Solve 3x + ${i} = ${i + 12}.`, hidden: { answer: '4', distractors: ['3', '5', '12'] },
});

/** Five samples (distinct seed keys, the same prompt) per task over `n` tasks, at a temperature (undefined: none sent). */
async function samples(temperature: number | undefined, n = 120): Promise<{ texts: string[][]; right: number }> {
  const side = new SimSideChannel();
  const sim = new SimModel({ seed: 3, sideChannel: side });
  const texts: string[][] = [];
  let right = 0;
  for (let i = 0; i < n; i++) {
    const t = task(i);
    side.taskStarted(t, spec);
    const messages = buildSolvePrompt('You are a careful problem solver.', spec, t, { lessons: [], meta: [] });
    const row: string[] = [];
    for (let k = 0; k < 5; k++) {
      const out = await sim.complete({ messages, stage: 'solve', taskId: t.id, seedKey: `${t.id}/agent-01/solve/${k}`, ...(temperature !== undefined ? { sampling: { temperature } } : {}) });
      row.push(out.text);
      if (/\\boxed\{4\}/.test(out.text)) right++;
    }
    texts.push(row);
  }
  return { texts, right: right / (n * 5) };
}

/** Share of sample pairs of one task that give the same text. */
const agreement = (texts: string[][]) => {
  let same = 0;
  let pairs = 0;
  for (const row of texts) for (let a = 0; a < row.length; a++) for (let b = a + 1; b < row.length; b++) { pairs++; if (row[a] === row[b]) same++; }
  return same / pairs;
};

describe('the simulated model honours temperature', () => {
  it('maps temperature to the prompt\'s share of the draws: 1 at 0, none from temperatureIndependent on', () => {
    expect(promptShare(0, 1)).toBe(1);
    expect(promptShare(0.6, 1)).toBeCloseTo(0.4);
    expect(promptShare(1, 1)).toBe(0);
    expect(promptShare(1.5, 1)).toBe(0);
  });

  it('at 0 an answer is a function of the prompt; draws spread as the temperature rises', async () => {
    const cold = await samples(0);
    expect(cold.texts.every((row) => row.every((t) => t === row[0]))).toBe(true);
    const warm = agreement((await samples(0.6)).texts);
    const hot = agreement((await samples(1)).texts);
    expect(warm).toBeLessThan(1);
    expect(hot).toBeLessThan(warm);
  });

  it('at temperatureIndependent and above it draws exactly as with no temperature set', async () => {
    const none = await samples(undefined, 40);
    expect((await samples(1, 40)).texts).toEqual(none.texts);
    expect((await samples(2, 40)).texts).toEqual(none.texts);
  });
});
