import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadScenario, runScenario } from '../../../src/index';
import { withOverrides } from '../../../src/engine/scenario/scenario';
import { SimModel } from '../../../src/sim/sim-model';
import { SimSideChannel } from '../../../src/sim/side-channel';
import type { Completion, CompletionRequest, LanguageModel, NicheSpec, Task } from '../../../src/index';
import { readPrompt } from '../../../src/sim/prompt-reader';
import { contrastPhasePrompt, type DreamAttempt } from '../../../src/population/codream/codream-prompts';

/** A simulated model that records every request with its reply (keeps the simulator's side channel). */
class Tap implements LanguageModel {
  readonly name = 'sim';
  readonly log: { req: CompletionRequest; text: string }[] = [];
  constructor(private readonly inner: SimModel) {}
  // The engine's task observer: keeps the simulator's side channel, so it answers as the simulator does.
  taskStarted(task: Task, spec: NicheSpec): void { this.inner.taskStarted(task, spec); }
  taskEnded(taskId: string): void { this.inner.taskEnded(taskId); }
  async complete(req: CompletionRequest): Promise<Completion> {
    const out = await this.inner.complete(req);
    this.log.push({ req, text: out.text });
    return out;
  }
  embed(texts: readonly string[]): Promise<Float32Array[]> { return this.inner.embed(texts); }
}

const full = (req: CompletionRequest) => req.messages.map((m) => m.content).join('\n');

describe('CoDream carries no knowledge from the simulator\'s side channel', () => {
  const byTask = new Map<string, { req: CompletionRequest; text: string }[]>();
  let sim: SimModel;
  let sessions = 0;

  beforeAll(async () => {
    const hard = withOverrides(loadScenario('scenarios/hard.json'), { stream: { tasks: 150 } });
    sim = new SimModel({ seed: hard.scenario.seed, params: hard.scenario.sim });
    const tap = new Tap(sim);
    await runScenario(hard, { model: tap, report: false, outDir: mkdtempSync(path.join(os.tmpdir(), 'evo-cd-')) });
    for (const call of tap.log) {
      const id = call.req.taskId ?? '';
      byTask.set(id, [...(byTask.get(id) ?? []), call]);
    }
    sessions = [...byTask.values()].filter((calls) => calls.some((c) => c.req.stage === 'codream')).length;
  });

  it('every strategy a session names was in a member\'s prompt or attempt, or came from one discovery draw in the reflect phase', () => {
    const names = (text: string) => sim.world.mentioned(text).map((s) => s.phrase);
    let carried = 0;
    let drawn = 0;
    for (const calls of byTask.values()) {
      const dream = calls.filter((c) => c.req.stage === 'codream');
      if (!dream.length) continue;
      // What members had: their solve prompts (persona, retrieved experience, teammates' answers) and their attempts.
      // A member left without a part (decompose) has no solve call; its own experience reaches CoDream
      // in its private reflect prompt, which is member context too.
      const context = new Set(calls.filter((c) => c.req.stage === 'solve').flatMap((c) => [...names(full(c.req)), ...names(c.text)]));
      for (const c of dream.filter((d) => readPrompt(d.req.messages).kind === 'dream-reflect')) for (const s of names(full(c.req))) context.add(s);
      const draws = new Set<string>();
      for (const c of dream.filter((d) => readPrompt(d.req.messages).kind === 'dream-reflect')) {
        const inPrompt = new Set(names(full(c.req)));
        const fresh = names(c.text).filter((s) => !inPrompt.has(s));
        expect(fresh.length).toBeLessThanOrEqual(1); // one draw per member
        for (const s of fresh) draws.add(s);
      }
      drawn += draws.size;
      for (const c of dream.filter((d) => readPrompt(d.req.messages).kind !== 'dream-reflect')) {
        for (const s of names(c.text)) {
          expect(context.has(s) || draws.has(s), `${readPrompt(c.req.messages).kind} named "${s}"`).toBe(true);
          if (readPrompt(c.req.messages).kind === 'dream-crystallize') carried++;
        }
      }
    }
    // Not vacuous: sessions ran and their insights did carry strategies.
    expect(sessions).toBeGreaterThan(20);
    expect(carried).toBeGreaterThan(10);
    expect(drawn).toBeGreaterThan(0);
  });

  it('contrasting two attempts that name no technique never names one', async () => {
    const side = new SimSideChannel();
    const model = new SimModel({ seed: 3, sideChannel: side, params: { discoverOnFailure: 1, discoverOnSuccess: 1 } });
    const spec: NicheSpec = {
      id: 'algebra', domain: 'math', title: 'Algebra', description: 'solve for x', keywords: ['algebra'],
      generator: 'algebra', difficulties: [1, 2, 3], answerFormat: 'Give the final answer as \\boxed{...}.',
    };
    const attempt = (agentId: string): DreamAttempt => ({
      agentId, persona: 'You are a solver.', text: 'So the final answer is \\boxed{3}.', reward: 0, feedback: null, experience: { lessons: [], meta: [] },
    });
    for (let i = 0; i < 60; i++) {
      const task: Task = {
        id: `algebra-${i}`, index: i, niche: 'algebra', domain: 'math', difficulty: 3, block: 0,
        question: `Solve 2x + ${i} = ${i + 6}.`, hidden: { answer: '3', distractors: ['4'] },
      };
      side.taskStarted(task, spec);
      const reply = await model.complete({
        messages: contrastPhasePrompt(spec, task, 'You are a solver.', attempt('a'), 'It failed.', attempt('b'), 'It failed.'),
        stage: 'codream', taskId: task.id, seedKey: `c/${i}`,
      });
      expect(model.world.mentioned(reply.text)).toEqual([]);
    }
  });
});
