import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadScenario, runScenario, type SimParams } from '../../src/index';
import { withOverrides } from '../../src/engine/scenario/scenario';
import { algebraSpec, algebraTask } from '../fixtures/algebra-niche';
import { Archive, type ArchiveEntry } from '../../src/individual/archive';
import { buildReflectPrompt, buildSolvePrompt } from '../../src/individual/agent-prompts';
import { SimModel } from '../../src/sim/sim-model';
import { SimSideChannel } from '../../src/sim/side-channel';
import { resolveSimParams } from '../../src/sim/sim-params';
import { SimWorld } from '../../src/sim/sim-world';
import { readPrompt, withContextBudget } from '../../src/sim/prompt-reader';
import { strategyLesson } from '../../src/sim/responders/reflect-responder';
import { successBreakdown } from '../../src/sim/responders/solve-responder';

const spec = algebraSpec;
const task = algebraTask;
const entry = (text: string, niche: string | null = 'algebra', key = new Float32Array([1, 0, 0, 0])): ArchiveEntry => ({
  id: text, text, niche, level: niche ? 'lesson' : 'meta', source: 'reflection', taskId: null, poolVersion: 0, key,
});
const persona = 'You are a careful problem solver.';
const GENERIC = entry('Re-read the question once more before giving the final answer.');

function setup(params: Partial<SimParams> = {}) {
  const side = new SimSideChannel();
  return { side, sim: new SimModel({ seed: 1, sideChannel: side, params: { malformed: 0, ...params } }) };
}

/** Solve accuracy over `n` level-3 tasks with the same retrieved lessons. */
async function accuracy(sim: SimModel, side: SimSideChannel, lessons: ArchiveEntry[], n = 300): Promise<number> {
  let right = 0;
  for (let i = 0; i < n; i++) {
    const t = task(i);
    side.taskStarted(t, spec);
    const out = await sim.complete({ messages: buildSolvePrompt(persona, spec, t, { lessons, meta: [] }), stage: 'solve', taskId: t.id, seedKey: `k/${i}` });
    if (/\\boxed\{4\}/.test(out.text)) right++;
  }
  return right / n;
}

describe('context budget (contextBudget)', () => {
  it('with k = 1 only the first retrieved lesson\'s strategy is read; 0 reads them all', () => {
    const world = new SimWorld(1, resolveSimParams());
    const lessons = world.nicheStrategies('algebra').map((s) => entry(strategyLesson(s, 'Algebra')));
    const messages = buildSolvePrompt(persona, spec, task(1), { lessons, meta: [entry('On any task, check twice.', null)] });
    const read = (k: number) => world.mentioned(readPrompt(withContextBudget(messages, k)).full).map((s) => s.phrase);
    expect(read(1)).toEqual([world.nicheStrategies('algebra')[0]!.phrase]);
    expect(read(3)).toHaveLength(3);
    expect(read(0)).toHaveLength(6);
    expect(withContextBudget(messages, 0)).toBe(messages);
    // The rest of the prompt is untouched: the task and the answer format are still there.
    expect(readPrompt(withContextBudget(messages, 1)).sections.get('task')).toBe(readPrompt(messages).sections.get('task'));
  });

  it('a lesson past the budget helps no more than no lesson: a generic first lesson uses up k = 1', async () => {
    const all = (sim: SimModel) => sim.world.nicheStrategies('algebra').map((s) => entry(strategyLesson(s, 'Algebra')));
    const open = setup();
    const bare = await accuracy(open.sim, open.side, []);
    const informed = await accuracy(open.sim, open.side, [GENERIC, ...all(open.sim)]);
    const tight = setup({ contextBudget: 1 });
    const budgeted = await accuracy(tight.sim, tight.side, [GENERIC, ...all(tight.sim)]);
    expect(informed).toBeGreaterThan(bare + 0.2);
    expect(Math.abs(budgeted - bare)).toBeLessThan(0.08);
    // Strategies first, the same budget of 6 reads all of them.
    const six = setup({ contextBudget: 6 });
    expect(await accuracy(six.sim, six.side, all(six.sim))).toBeGreaterThan(bare + 0.2);
  });
});

describe('more and rarer strategies (strategiesPerNiche, strategyRarity)', () => {
  const frequency = (params: Partial<SimParams>, tasks = 2000) => {
    const world = new SimWorld(3, resolveSimParams(params));
    const phrases = world.nicheStrategies('algebra').map((s) => s.phrase);
    const counts = phrases.map(() => 0);
    for (let i = 0; i < tasks; i++) for (const s of world.required('algebra', `t-${i}`, 3)) counts[phrases.indexOf(s.phrase)]!++;
    return counts.map((c) => c / tasks);
  };

  it('rarity 0 draws every strategy about equally often; rarity 1.5 makes the first common and the last rare', () => {
    const flat = frequency({ strategiesPerNiche: 12 });
    expect(Math.max(...flat) - Math.min(...flat)).toBeLessThan(0.06);
    const zipf = frequency({ strategiesPerNiche: 12, strategyRarity: 1.5 });
    expect(zipf[0]!).toBeGreaterThan(0.8);
    expect(zipf[11]!).toBeLessThan(0.08);
    for (let i = 1; i < 12; i++) expect(zipf[i]!).toBeLessThanOrEqual(zipf[i - 1]! + 0.03);
    // Every task still needs exactly its level's number of distinct strategies.
    const world = new SimWorld(3, resolveSimParams({ strategiesPerNiche: 12, strategyRarity: 1.5 }));
    for (let i = 0; i < 50; i++) expect(new Set(world.required('algebra', `t-${i}`, 3).map((s) => s.phrase)).size).toBe(3);
  });

  it('rarity 0 is the uniform shuffle of before (a world without it draws the same required sets)', () => {
    const a = new SimWorld(5, resolveSimParams());
    const b = new SimWorld(5, resolveSimParams({ strategyRarity: 0 }));
    for (let i = 0; i < 20; i++) expect(b.required('algebra', `t-${i}`, 2)).toEqual(a.required('algebra', `t-${i}`, 2));
  });
});

describe('lessons that are sometimes wrong (wrongLesson)', () => {
  async function reflections(params: Partial<SimParams>) {
    const { side, sim } = setup({ discoverOnSuccess: 1, ...params });
    const found = { required: 0, decoy: 0 };
    for (let i = 0; i < 60; i++) {
      const t = task(i);
      side.taskStarted(t, spec);
      const out = await sim.complete({
        messages: buildReflectPrompt({ persona, spec, task: t, experience: { lessons: [], meta: [] }, ownAnswer: '4', teamAnswer: '4', reward: 1, correct: true }),
        stage: 'reflect', taskId: t.id, seedKey: `r/${i}`,
      });
      const lesson = (JSON.parse(out.text.replace(/^[\s\S]*?(\{[\s\S]*\})[\s\S]*$/, '$1')) as { lesson: string }).lesson;
      const named = sim.world.mentioned(lesson);
      if (named.some((s) => s.scope === 'decoy:algebra')) found.decoy++;
      if (named.some((s) => sim.world.required('algebra', t.id, 3).some((r) => r.phrase === s.phrase))) found.required++;
    }
    return { found, sim };
  }

  it('at 0 a discovery names one of the task\'s strategies; at 1 always a decoy, which no task needs and which dilutes', async () => {
    const right = await reflections({});
    expect(right.found).toEqual({ required: 60, decoy: 0 });
    const wrong = await reflections({ wrongLesson: 1 });
    expect(wrong.found).toEqual({ required: 0, decoy: 60 });
    const decoys = wrong.sim.world.decoyStrategies('algebra');
    const required = new Set(Array.from({ length: 200 }, (_, i) => wrong.sim.world.required('algebra', `x-${i}`, 3)).flat().map((s) => s.phrase));
    for (const d of decoys) expect(required.has(d.phrase)).toBe(false);
    const t = task(7);
    const withDecoy = successBreakdown(wrong.sim.world, wrong.sim.params, persona, `${persona}\n${strategyLesson(decoys[0]!, 'Algebra')}`, t, spec);
    const without = successBreakdown(wrong.sim.world, wrong.sim.params, persona, persona, t, spec);
    expect(withDecoy.covered).toBe(0);
    expect(withDecoy.offNiche).toBe(1);
    expect(withDecoy.probability).toBeLessThan(without.probability);
  });

  it('about half the discoveries go wrong at 0.5', async () => {
    const { found } = await reflections({ wrongLesson: 0.5 });
    expect(found.required + found.decoy).toBe(60);
    expect(found.decoy).toBeGreaterThan(15);
    expect(found.decoy).toBeLessThan(45);
  });
});

describe('forgetting when a niche bucket is full (memory.capacity)', () => {
  const key = (i: number) => new Float32Array([1, i / 10, 0, 0]);
  const lesson = (i: number, niche: string | null = 'algebra') => ({ ...entry(`lesson ${i}`, niche, key(i)), id: `l${i}` });

  it('a full bucket forgets its oldest entry: retrieval and de-duplication no longer see it, so it can be stored again', () => {
    const a = new Archive({ dim: 4, capacity: 2 });
    for (const i of [1, 2, 3]) expect(a.add(lesson(i))).toBe(true);
    expect(a.retrieve(key(1), 'algebra', 5, 0).lessons.map((e) => e.text).sort()).toEqual(['lesson 2', 'lesson 3']);
    expect(a.has('lesson 1', 'algebra')).toBe(false);
    expect(a.has('lesson 3', 'algebra')).toBe(true);
    expect(a.sizeByNiche()).toEqual({ algebra: 2 });
    expect(a.add(lesson(1))).toBe(true);
    expect(a.retrieve(key(1), 'algebra', 5, 0).lessons.map((e) => e.text).sort()).toEqual(['lesson 1', 'lesson 3']);
    // The meta pool and other niches are not limited by one niche's bucket.
    for (const i of [4, 5, 6]) a.add(lesson(i, null));
    a.add(lesson(7, 'geometry'));
    expect(a.metaSize()).toBe(3);
    expect(a.sizeByNiche()).toEqual({ algebra: 2, geometry: 1 });
    expect(a.entries().map((e) => e.text)).toEqual(['lesson 3', 'lesson 1', 'lesson 4', 'lesson 5', 'lesson 6', 'lesson 7']);
  });

  it('an older version keeps what it held; a child (clone) keeps the bound; unbounded by default', () => {
    const a = new Archive({ dim: 4, capacity: 2 }).with(lesson(1)).with(lesson(2));
    const b = a.with(lesson(3));
    expect(a.retrieve(key(1), 'algebra', 5, 0).lessons.map((e) => e.text).sort()).toEqual(['lesson 1', 'lesson 2']);
    expect(b.retrieve(key(1), 'algebra', 5, 0).lessons.map((e) => e.text).sort()).toEqual(['lesson 2', 'lesson 3']);
    const child = b.clone().with(lesson(4));
    expect(child.sizeByNiche()).toEqual({ algebra: 2 });
    const open = new Archive({ dim: 4 });
    for (const i of [1, 2, 3]) open.add(lesson(i));
    expect(open.sizeByNiche()).toEqual({ algebra: 3 });
    expect(() => new Archive({ dim: 4, capacity: 0 })).toThrow(RangeError);
  });

  it('memory.capacity bounds every agent\'s niche buckets in a run', async () => {
    const quickstart = loadScenario(path.resolve('scenarios/quickstart.json'));
    const run = (capacity?: number) => runScenario(capacity ? withOverrides(quickstart, { memory: { capacity } }) : quickstart, { patch: { 'stream.tasks': 40 }, report: false, outDir: mkdtempSync(path.join(tmpdir(), 'evo-capacity-')) });
    const [open, bounded] = [await run(), await run(1)];
    const buckets = 4 * quickstart.scenario.stream.niches.length;
    expect(open.summary.agents.lessons).toBeGreaterThan(buckets);
    expect(bounded.summary.agents.lessons).toBeLessThanOrEqual(buckets);
    expect(bounded.summary.accuracy).not.toBe(open.summary.accuracy);
  });
});
