import { describe, expect, it } from 'vitest';
import { DEFAULT_SIM_PARAMS, type NicheSpec, type Task } from '../../src/index';
import { buildReflectPrompt, buildSolvePrompt } from '../../src/individual/agent-prompts';
import { SimModel } from '../../src/sim/sim-model';
import { SimSideChannel } from '../../src/sim/side-channel';
import type { ArchiveEntry } from '../../src/individual/archive';
import { successBreakdown } from '../../src/sim/responders/solve-responder';
import { strategyLesson } from '../../src/sim/responders/reflect-responder';

const spec: NicheSpec = {
  id: 'algebra', domain: 'math', title: 'Algebra', description: 'solve for x', keywords: ['algebra', 'equations'],
  generator: 'algebra', difficulties: [1, 2, 3], answerFormat: 'Give the final answer as \\boxed{...}.',
};
const task = (i: number, difficulty = 2): Task => ({
  id: `algebra-${i}`, index: i, niche: 'algebra', domain: 'math', difficulty, block: 0,
  question: `Solve 3x + ${i} = ${i + 12}.`, hidden: { answer: '4', distractors: ['3', '5', '12'] },
});
const entry = (text: string, niche: string | null = 'algebra'): ArchiveEntry => ({
  id: text, text, niche, level: niche ? 'lesson' : 'meta', source: 'reflection', taskId: null, poolVersion: 0, key: new Float32Array(4),
});
const persona = 'You are a careful problem solver.';

function setup(seed = 1) {
  const side = new SimSideChannel();
  const sim = new SimModel({ seed, sideChannel: side });
  return { side, sim };
}

async function accuracy(sim: SimModel, side: SimSideChannel, lessons: ArchiveEntry[], who = persona, n = 300): Promise<number> {
  let right = 0;
  for (let i = 0; i < n; i++) {
    const t = task(i);
    side.taskStarted(t, spec);
    const out = await sim.complete({ messages: buildSolvePrompt(who, spec, t, { lessons, meta: [] }), stage: 'solve', taskId: t.id, seedKey: `k/${i}` });
    if (/\\boxed\{4\}/.test(out.text)) right++;
  }
  return right / n;
}

describe('simulated model', () => {
  it('answers the same request the same way whatever order requests come in', async () => {
    const { side, sim } = setup();
    const t = task(1);
    side.taskStarted(t, spec);
    const req = { messages: buildSolvePrompt(persona, spec, t, { lessons: [], meta: [] }), stage: 'solve' as const, taskId: t.id, seedKey: 'x' };
    const first = await sim.complete(req);
    await sim.complete({ ...req, seedKey: 'other' });
    expect((await sim.complete(req)).text).toBe(first.text);
  });

  it('succeeds more when the prompt names the strategies the task needs', async () => {
    const { side, sim } = setup();
    const all = sim.world.nicheStrategies('algebra').map((s) => entry(strategyLesson(s, 'Algebra')));
    const bare = await accuracy(sim, side, []);
    const informed = await accuracy(sim, side, all);
    expect(informed).toBeGreaterThan(bare + 0.2);
  });

  it('rewards a persona aimed at the niche and penalises off-niche context', () => {
    const { sim } = setup();
    const t = task(3);
    const plain = successBreakdown(sim.world, sim.params, persona, persona, t, spec);
    const aimed = successBreakdown(sim.world, sim.params, 'You specialise in algebra.', 'You specialise in algebra.', t, spec);
    expect(aimed.logit - plain.logit).toBeCloseTo(DEFAULT_SIM_PARAMS.personaMatch);
    const offText = sim.world.nicheStrategies('people-qa').map((s) => s.phrase).join('\n');
    const diluted = successBreakdown(sim.world, sim.params, persona, offText, t, spec);
    expect(diluted.offNiche).toBe(DEFAULT_SIM_PARAMS.strategiesPerNiche);
    expect(diluted.logit).toBeLessThan(plain.logit);
  });

  it('gives wrong answers from a small distractor set, so wrong answers can agree', async () => {
    const { side, sim } = setup();
    const t = task(5, 3);
    side.taskStarted(t, spec);
    const wrong = new Map<string, number>();
    for (let i = 0; i < 200; i++) {
      const out = await sim.complete({ messages: buildSolvePrompt(persona, spec, t, { lessons: [], meta: [] }), stage: 'solve', taskId: t.id, seedKey: `s/${i}` });
      const m = /\\boxed\{([^}]*)\}/.exec(out.text);
      if (m && m[1] !== '4') wrong.set(m[1]!, (wrong.get(m[1]!) ?? 0) + 1);
    }
    const top = Math.max(...wrong.values());
    const total = [...wrong.values()].reduce((a, b) => a + b, 0);
    expect(top / total).toBeGreaterThan(0.3);
  });

  it('reflects with JSON that can name a strategy the agent lacked, never one it already had', async () => {
    const { side, sim } = setup();
    const phrases = sim.world.nicheStrategies('algebra').map((s) => s.phrase);
    let named = 0;
    for (let i = 0; i < 100; i++) {
      const t = task(i, 3);
      side.taskStarted(t, spec);
      const [req] = sim.world.required('algebra', t.id, 3);
      const exp = { lessons: [entry(strategyLesson(req!, 'Algebra'))], meta: [] };
      const out = await sim.complete({
        messages: buildReflectPrompt({ persona, spec, task: t, experience: exp, ownAnswer: '4', teamAnswer: '4', reward: 1, correct: true }),
        stage: 'reflect', taskId: t.id, seedKey: `r/${i}`,
      });
      expect(out.text).toMatch(/lesson/i);
      if (phrases.some((p) => out.text.includes(p))) named++;
      expect(out.text.includes(req!.phrase)).toBe(false);
    }
    expect(named).toBeGreaterThan(10);
  });

  it('bills realistic, long-tailed output lengths in virtual time', async () => {
    const { side, sim } = setup();
    const lens: number[] = [];
    for (let i = 0; i < 100; i++) {
      const t = task(i);
      side.taskStarted(t, spec);
      const out = await sim.complete({ messages: buildSolvePrompt(persona, spec, t, { lessons: [], meta: [] }), stage: 'solve', taskId: t.id, seedKey: `l/${i}` });
      lens.push(out.usage.completionTokens);
      expect(out.timing.totalMs).toBeGreaterThan(out.timing.ttftMs);
    }
    lens.sort((a, b) => a - b);
    expect(lens[50]!).toBeGreaterThan(700);
    expect(lens[95]!).toBeGreaterThan(2 * lens[50]!);
  });
});
