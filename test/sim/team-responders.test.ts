import { describe, expect, it } from 'vitest';
import { type ChatMessage, type NicheSpec, type Task } from '../../src/index';
import { SimModel } from '../../src/sim/sim-model';
import { SimSideChannel } from '../../src/sim/side-channel';
import { strategyLesson } from '../../src/sim/responders/reflect-responder';
import { goldMarker } from '../../src/sim/responders/solve-responder';
import { reviewPrompt, reviseDebatePrompt, reviseFeedbackPrompt, solvePartPrompt } from '../../src/team/team-prompts';
import { chooseStructurePrompt } from '../../src/team/leadlearn/choose-prompt';
import type { LeadershipEntry } from '../../src/team/leadlearn/leadership-bank';

const spec: NicheSpec = {
  id: 'algebra', domain: 'math', title: 'Algebra', description: 'solve for x', keywords: ['algebra'],
  generator: 'algebra', difficulties: [1, 2, 3], answerFormat: 'Give the final answer as \\boxed{...}.',
};
const task = (i: number, difficulty = 3): Task => ({
  id: `algebra-${i}`, index: i, niche: 'algebra', domain: 'math', difficulty, block: 0,
  question: `Solve 2x + ${i} = ${i + 8}.`, hidden: { answer: '4', distractors: ['3', '5', '8'] },
});
const persona = 'You are a careful problem solver.';
const noExp = { lessons: [], meta: [] };

function setup() {
  const side = new SimSideChannel();
  return { side, sim: new SimModel({ seed: 5, sideChannel: side }) };
}
async function text(sim: SimModel, messages: ChatMessage[], t: Task, key: string) {
  return (await sim.complete({ messages, stage: 'solve', taskId: t.id, seedKey: key })).text;
}

describe('simulated model: team prompts', () => {
  it('a reviewer rejects an answer whose public tests failed', async () => {
    const { side, sim } = setup();
    const t = task(1);
    side.taskStarted(t, spec);
    for (let i = 0; i < 20; i++) {
      const reply = await text(sim, reviewPrompt({ persona, spec, task: t, experience: noExp }, '\\boxed{4}', '1/2 public tests passed.\nFAILED: assert f(1) == 2'), t, `r${i}`);
      // Malformed replies are part of the model; a parseable one must say incorrect.
      expect(reply).toMatch(/incorrect/);
    }
  });

  it('a reviewer who knows a required strategy names it when rejecting', async () => {
    const { side, sim } = setup();
    const t = task(2);
    side.taskStarted(t, spec);
    const known = sim.world.required('algebra', t.id, 3);
    const lessons = known.map((s) => ({ id: s.phrase, text: strategyLesson(s, 'Algebra'), niche: 'algebra', level: 'lesson' as const, source: 'reflection' as const, taskId: null, poolVersion: 0, key: new Float32Array(4) }));
    let named = 0;
    for (let i = 0; i < 40; i++) {
      const raw = await text(sim, reviewPrompt({ persona, spec, task: t, experience: { lessons, meta: [] } }, '\\boxed{3}', null), t, `k${i}`);
      const reply = raw.startsWith('{') ? JSON.parse(raw) : { verdict: null, feedback: '' };
      if (reply.verdict === 'incorrect' && known.some((s) => reply.feedback.includes(s.phrase))) named++;
    }
    expect(named).toBeGreaterThan(20);
  });

  it('a teammate\'s right answer helps a reviser only when it shows work the reviser can check', async () => {
    const { side, sim } = setup();
    let checkable = 0;
    let bare = 0;
    let without = 0;
    for (let i = 0; i < 300; i++) {
      const t = task(i);
      side.taskStarted(t, spec);
      const ctx = { persona, spec, task: t, experience: noExp };
      const worked = `Working through the steps carefully.\nSo the final answer is ${goldMarker(t)}.`;
      if ((await text(sim, reviseDebatePrompt(ctx, '\\boxed{3}', [worked, '\\boxed{5}'], 1), t, `g${i}`)).includes(goldMarker(t))) checkable++;
      if ((await text(sim, reviseDebatePrompt(ctx, '\\boxed{3}', [`x ${goldMarker(t)}`, '\\boxed{5}'], 1), t, `g${i}`)).includes(goldMarker(t))) bare++;
      if ((await text(sim, reviseDebatePrompt(ctx, '\\boxed{3}', ['\\boxed{8}', '\\boxed{5}'], 1), t, `g${i}`)).includes(goldMarker(t))) without++;
    }
    expect(checkable).toBeGreaterThan(without + 30);
    // Same draws, same probability: a bare answer (no derivation) earns no recognition at all.
    expect(bare).toBe(without);
  });

  it('a strategy only read in a teammate\'s answer counts less than one the reviser holds', async () => {
    const { side, sim } = setup();
    let held = 0;
    let read = 0;
    for (let i = 0; i < 300; i++) {
      const t = task(1000 + i);
      side.taskStarted(t, spec);
      const req = sim.world.required('algebra', t.id, 3);
      const lessons = req.map((s) => ({ id: s.phrase, text: strategyLesson(s, 'Algebra'), niche: 'algebra', level: 'lesson' as const, source: 'reflection' as const, taskId: null, poolVersion: 0, key: new Float32Array(4) }));
      const peer = `I apply the ${req.map((s) => s.phrase).join(' and the ')}.\n\\boxed{5}`;
      if ((await text(sim, reviseDebatePrompt({ persona, spec, task: t, experience: { lessons, meta: [] } }, '\\boxed{3}', [peer, '\\boxed{8}'], 1), t, `u${i}`)).includes(goldMarker(t))) held++;
      if ((await text(sim, reviseDebatePrompt({ persona, spec, task: t, experience: noExp }, '\\boxed{3}', [peer, '\\boxed{8}'], 1), t, `u${i}`)).includes(goldMarker(t))) read++;
    }
    expect(held).toBeGreaterThan(read + 20);
  });

  it('a reviser shown its answer failing public tests is right more often than one with the feedback alone', async () => {
    const { side, sim } = setup();
    let tested = 0;
    let untested = 0;
    for (let i = 0; i < 300; i++) {
      const t = task(2000 + i);
      side.taskStarted(t, spec);
      const ctx = { persona, spec, task: t, experience: noExp };
      const fb = ['This looks wrong; re-check the last step against the statement.'];
      if ((await text(sim, reviseFeedbackPrompt(ctx, '\\boxed{3}', fb, '0/2 public tests passed.\nFAILED: assert f(1) == 2'), t, `t${i}`)).includes(goldMarker(t))) tested++;
      if ((await text(sim, reviseFeedbackPrompt(ctx, '\\boxed{3}', fb), t, `t${i}`)).includes(goldMarker(t))) untested++;
    }
    expect(tested).toBeGreaterThan(untested + 30);
  });

  it('a part solver names the part\'s strategy only when its own knowledge has it', async () => {
    const { side, sim } = setup();
    const t = task(3);
    side.taskStarted(t, spec);
    const s = sim.world.required('algebra', t.id, 3)[0]!;
    const lesson = { id: 'l', text: strategyLesson(s, 'Algebra'), niche: 'algebra', level: 'lesson' as const, source: 'reflection' as const, taskId: null, poolVersion: 0, key: new Float32Array(4) };
    const knows = await text(sim, solvePartPrompt({ persona, spec, task: t, experience: { lessons: [lesson], meta: [] } }, 'step one', 1, 2), t, 'p1');
    const lacks = await text(sim, solvePartPrompt({ persona, spec, task: t, experience: noExp }, 'step one', 1, 2), t, 'p1');
    expect(knows).toContain(s.phrase);
    expect(lacks).not.toContain(s.phrase);
  });

  it('a leader follows the records it is shown and explores when it has none', async () => {
    const { sim } = setup();
    const rec = (structure: string, outcome: number): LeadershipEntry => ({
      id: 'x', taskId: 't', niche: 'algebra', difficulty: 2, teamProfile: [0.5, 0.5, 0.5], structure, outcome, note: 'n', poolVersion: 0, key: new Float32Array(4),
    });
    const records = [...Array(6).fill(rec('decompose', 1)), ...Array(6).fill(rec('voting', 0)), ...Array(6).fill(rec('debate', 0.2)), ...Array(6).fill(rec('generator-critic', 0.1))];
    const picks = new Map<string, number>();
    const fresh = new Set<string>();
    for (let i = 0; i < 60; i++) {
      const reply = (await sim.complete({ messages: chooseStructurePrompt(persona, spec, 3, [0.5, 0.5, 0.5], records, 2), stage: 'leadlearn', seedKey: `c${i}` })).text;
      const s = (() => { try { return JSON.parse(reply).structure as string; } catch { return 'unparsed'; } })();
      picks.set(s, (picks.get(s) ?? 0) + 1);
      const zero = (await sim.complete({ messages: chooseStructurePrompt(persona, spec, 3, [0.5, 0.5, 0.5], [], 2), stage: 'leadlearn', seedKey: `z${i}` })).text;
      try { fresh.add(JSON.parse(zero).structure); } catch { /* malformed replies are part of the model */ }
    }
    expect(picks.get('decompose')).toBeGreaterThan(50);
    expect(fresh.size).toBe(4);
  });

  it('a leader chooses only among the structures its prompt lists, whatever they are called', async () => {
    const { sim } = setup();
    const offered = [
      { name: 'relay', description: 'one answers, the next checks.', choosable: true, run: async () => { throw new Error('never run here'); } },
      { name: 'debate', description: 'members revise for {{rounds}} rounds.', choosable: true, run: async () => { throw new Error('never run here'); } },
    ];
    const chosen = new Set<string>();
    for (let i = 0; i < 40; i++) {
      const messages = chooseStructurePrompt(persona, spec, 3, [0.5, 0.5, 0.5], [], 2, null, offered);
      expect(messages[1]!.content).toContain('Structures you can use:\n- relay: one answers, the next checks.\n- debate: members revise for 2 rounds.\n\n');
      const reply = (await sim.complete({ messages, stage: 'leadlearn', seedKey: `o${i}` })).text;
      try { chosen.add(JSON.parse(reply).structure); } catch { /* malformed replies are part of the model */ }
    }
    expect([...chosen].sort()).toEqual(['debate', 'relay']);
  });
});
