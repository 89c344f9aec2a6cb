import { describe, expect, it } from 'vitest';
import type { SimParams } from '../../src/index';
import { algebraSpec as spec, algebraTask as task } from '../fixtures/algebra-niche';
import { SimModel } from '../../src/sim/sim-model';
import { SimSideChannel } from '../../src/sim/side-channel';
import { followedSteps } from '../../src/sim/responders/decompose-responder';
import { solvePartPrompt, synthesizePrompt } from '../../src/team/team-prompts';

const persona = 'You are a careful problem solver.';
const noExp = { lessons: [], meta: [] };

function setup(params: Partial<SimParams>) {
  const side = new SimSideChannel();
  return { side, sim: new SimModel({ seed: 3, sideChannel: side, params: { malformed: 0, thinkBlock: 0, ...params } }) };
}

/** A memoryless member's replies to sub-problem 1 of each of `n` tasks, the part stating the task's first required step. */
async function parts(params: Partial<SimParams>, n = 40) {
  const { side, sim } = setup(params);
  const out: { reply: string; phrase: string; gloss: string }[] = [];
  for (let i = 0; i < n; i++) {
    const t = task(i);
    side.taskStarted(t, spec);
    const first = sim.world.required('algebra', t.id, t.difficulty, t.question)[0]!;
    const messages = solvePartPrompt({ persona, spec, task: t, experience: noExp }, `Handle the first key step: ${first.gloss}.`, 1, 2);
    const reply = (await sim.complete({ messages, stage: 'solve', taskId: t.id, seedKey: `p/${i}` })).text;
    out.push({ reply, phrase: first.phrase, gloss: first.gloss });
  }
  return out;
}

/** Synthesis accuracy over `n` tasks when every sub-problem solution reports its step done by following the plan, or plainly. */
async function synthesis(params: Partial<SimParams>, followed: boolean, n = 300) {
  const { side, sim } = setup(params);
  let right = 0;
  for (let i = 0; i < n; i++) {
    const t = task(i);
    side.taskStarted(t, spec);
    const required = sim.world.required('algebra', t.id, t.difficulty, t.question);
    const solutions = required.map((s) => (followed ? `Following the plan: ${s.gloss}. Partial result established for this step.` : 'Worked through this step directly; partial result established.'));
    const messages = synthesizePrompt({ persona, spec, task: t, experience: noExp }, solutions);
    const reply = (await sim.complete({ messages, stage: 'solve', taskId: t.id, seedKey: `s/${i}` })).text;
    if (reply.includes('\\boxed{4}')) right++;
  }
  return right / n;
}

describe('decomposition without held knowledge (stepUptake)', () => {
  it('at 0 a memoryless member returns the plain partial result, exactly as with the setting absent', async () => {
    const absent = await parts({});
    const zero = await parts({ stepUptake: 0 });
    expect(zero).toEqual(absent);
    for (const p of zero) expect(p.reply).toBe('Worked through this step directly; partial result established.');
  });

  it('at 1 a memoryless member follows the step it is handed, by what it does and never by a name it does not hold', async () => {
    for (const p of await parts({ stepUptake: 1 })) {
      expect(p.reply).toBe(`Following the plan: ${p.gloss}. Partial result established for this step.`);
      expect(p.reply).not.toContain(p.phrase);
    }
  });

  it('a step not stated in the sub-problem is not followed, whatever the chance', async () => {
    const { side, sim } = setup({ stepUptake: 1 });
    const t = task(7);
    side.taskStarted(t, spec);
    const messages = solvePartPrompt({ persona, spec, task: t, experience: noExp }, 'Handle the first key step somehow.', 1, 2);
    expect((await sim.complete({ messages, stage: 'solve', taskId: t.id, seedKey: 'x' })).text).toMatch(/^Worked through this step directly/);
  });

  it('a followed step counts as done for the synthesizer: it covers that required strategy, a plain one covers none', () => {
    const { side, sim } = setup({});
    const t = task(2);
    side.taskStarted(t, spec);
    const [first] = sim.world.required('algebra', t.id, t.difficulty, t.question);
    const found = followedSteps(sim.world, `Sub-problem 1:\nFollowing the plan: ${first!.gloss}. Partial result established for this step.`, t);
    expect(found.split('\n')).toContain(first!.phrase);
    expect(followedSteps(sim.world, 'Sub-problem 1:\nWorked through this step directly; partial result established.', t)).toBe('');
  });

  it('a synthesis over followed steps succeeds clearly more often than one over plain partial results', async () => {
    const params = { coverage: 3 };
    const plain = await synthesis(params, false);
    const followed = await synthesis(params, true);
    expect(followed - plain).toBeGreaterThan(0.2);
  });
});
