import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadScenario, resumeRun, runScenario } from '../../src/index';
import { withOverrides } from '../../src/engine/scenario/scenario';
import { algebraSpec, algebraTask } from '../fixtures/algebra-niche';
import { buildReflectPrompt } from '../../src/individual/agent-prompts';
import { createHashEmbedder } from '../../src/llm/hash-embedder';
import { presentedTasks } from '../../src/engine/run/model-stack';
import { SimModel } from '../../src/sim/sim-model';
import { SimSideChannel } from '../../src/sim/side-channel';
import { resolveSimParams } from '../../src/sim/sim-params';
import { simPlugin } from '../../src/sim/sim-plugin';
import { SimWorld } from '../../src/sim/sim-world';
import { buildNiches, GraderSet } from '../../src/tasks/niche-registry';
import { taskStream } from '../../src/tasks/stream';

const spec = algebraSpec;
const task = algebraTask;
const phrases = (xs: readonly { phrase: string }[]) => xs.map((s) => s.phrase);

describe('problem families (taskFamilies)', () => {
  it('off (0): a task is shown as generated and its required strategies are the id draw', () => {
    const world = new SimWorld(1, resolveSimParams());
    const t = task(1);
    expect(world.present(t)).toBe(t);
    expect(world.taskFamily('algebra', t.id)).toBeUndefined();
    // A text that looks like a cue line changes nothing in a world without families.
    const withFamilies = new SimWorld(1, resolveSimParams({ taskFamilies: 3 }));
    const cued = withFamilies.present(t).question;
    for (let i = 0; i < 20; i++) expect(world.required('algebra', `algebra-${i}`, 3, cued)).toEqual(world.required('algebra', `algebra-${i}`, 3));
  });

  it('on: the text shows the family\'s cue, and the required strategies are read from it, nested by difficulty', () => {
    const world = new SimWorld(1, resolveSimParams({ taskFamilies: 3 }));
    const byFamily = new Map<number, string[]>();
    for (let i = 0; i < 60; i++) {
      const shown = world.present(task(i));
      const f = world.taskFamily('algebra', shown.id)!;
      expect(shown.question.startsWith(`Problem type: ${world.familyCue('algebra', f)}.\n\n`)).toBe(true);
      expect(shown.question.endsWith(task(i).question)).toBe(true);
      expect(world.familyShown('algebra', shown.question)).toBe(f);
      const req = phrases(world.required('algebra', shown.id, 3, shown.question));
      // Every task of a family needs the same strategies at one level; an easier one needs a prefix of them.
      expect(req).toEqual(byFamily.get(f) ?? req);
      byFamily.set(f, req);
      expect(phrases(world.required('algebra', shown.id, 2, shown.question))).toEqual(req.slice(0, 2));
      // With no text given, the family the id draws (the one its text shows).
      expect(phrases(world.required('algebra', shown.id, 3))).toEqual(req);
    }
    expect(byFamily.size).toBe(3);
    expect(new Set([...byFamily.values()].map((r) => r.join('|'))).size).toBe(3);
  });

  it('reads the text, not the id: another family\'s cue gives that family\'s strategies; a text with no cue gives the id draw', () => {
    const world = new SimWorld(1, resolveSimParams({ taskFamilies: 3 }));
    const plain = new SimWorld(1, resolveSimParams());
    const t = task(5);
    const f = world.taskFamily('algebra', t.id)!;
    const other = (f + 1) % 3;
    const otherText = `Problem type: ${world.familyCue('algebra', other)}.\n\n${t.question}`;
    const ofOther = world.present(Array.from({ length: 50 }, (_, i) => task(100 + i)).find((x) => world.taskFamily('algebra', x.id) === other)!);
    expect(world.required('algebra', t.id, 3, otherText)).toEqual(world.required('algebra', ofOther.id, 3, ofOther.question));
    // Served without the world's presentation (a serve-sim over HTTP): nothing in the text, the id draw as before.
    expect(world.required('algebra', t.id, 3, t.question)).toEqual(plain.required('algebra', t.id, 3));
  });

  it('cues of a niche share no word and name no strategy', () => {
    const world = new SimWorld(1, resolveSimParams({ taskFamilies: 5 }));
    const words = [0, 1, 2, 3, 4].flatMap((f) => world.familyCue('algebra', f).split(' '));
    expect(words).toHaveLength(30);
    expect(new Set(words).size).toBe(30);
    world.nicheStrategies('algebra');
    expect(world.mentioned(world.present(task(1)).question)).toEqual([]);
  });

  it('a lesson says the problem type it was learnt on; without families it does not', async () => {
    const lessonOf = async (taskFamilies: number) => {
      const side = new SimSideChannel();
      const sim = new SimModel({ seed: 1, sideChannel: side, params: { malformed: 0, discoverOnSuccess: 1, thinkBlock: 0, taskFamilies } });
      const t = sim.world.present(task(3));
      side.taskStarted(t, spec);
      const out = await sim.complete({
        messages: buildReflectPrompt({ persona: 'p', spec, task: t, experience: { lessons: [], meta: [] }, ownAnswer: '4', teamAnswer: '4', reward: 1, correct: true }),
        stage: 'reflect', taskId: t.id, seedKey: 'r/1',
      });
      return { lesson: (JSON.parse(out.text) as { lesson: string }).lesson, sim, t };
    };
    const on = await lessonOf(3);
    const cue = on.sim.world.familyCue('algebra', on.sim.world.taskFamily('algebra', on.t.id)!);
    expect(on.lesson).toContain(`Algebra, problems of type ${cue}, apply the `);
    expect(on.sim.world.mentioned(on.lesson).some((s) => on.sim.world.required('algebra', on.t.id, 3, on.t.question).includes(s))).toBe(true);
    const off = await lessonOf(0);
    expect(off.lesson).toMatch(/^When working on Algebra, apply the /);
  });

  it('retrieval by the task text finds what was learnt on tasks of the same family (hard-math stream)', () => {
    const loaded = loadScenario(path.resolve('scenarios/hard-math.json'));
    const sc = loaded.scenario;
    const niches = buildNiches(sc.stream.niches, loaded.dir, new GraderSet({} as never));
    const world = new SimWorld(1, resolveSimParams({ taskFamilies: 3 }));
    const embedder = createHashEmbedder();
    const tasks = [...taskStream({ ...sc.stream, tasks: 200, entries: sc.stream.niches, niches, seed: 1 })].map((t) => world.present(t));
    // Keyed as reflection keys a lesson: the task's text, then the lesson (which names the problem type).
    const keys = tasks.map((t) => embedder.embedSync(`${t.question}\nWhen working on X, ${world.problemType(t.niche, t.question)}, apply the lattice-ledger pass.`));
    const queries = tasks.map((t) => embedder.embedSync(t.question));
    const dot = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i]!, 0);
    let same = 0;
    let n = 0;
    for (let i = 40; i < tasks.length; i++) {
      const earlier = [...Array(i).keys()].filter((j) => j >= i - 40 && tasks[j]!.niche === tasks[i]!.niche);
      for (const j of earlier.sort((a, b) => dot(queries[i]!, keys[b]!) - dot(queries[i]!, keys[a]!)).slice(0, 3)) {
        n++;
        if (world.taskFamily(tasks[j]!.niche, tasks[j]!.id) === world.taskFamily(tasks[i]!.niche, tasks[i]!.id)) same++;
      }
    }
    // Chance is a third; the cue makes same-family lessons the nearest more often than not, not always.
    expect(same / n).toBeGreaterThan(0.55);
    expect(same / n).toBeLessThan(0.95);
  });

  it('the plug-in presents a scenario\'s tasks only when its world turns families on (globally or for a niche)', () => {
    const base = loadScenario(path.resolve('scenarios/hard-math.json'));
    expect(simPlugin.presentTask(base.scenario)).toBeUndefined();
    const tasks = () => taskStream({ ...base.scenario.stream, tasks: 5, entries: base.scenario.stream.niches, niches: buildNiches(base.scenario.stream.niches, base.dir, new GraderSet({} as never)), seed: 1 });
    const asGenerated = [...tasks()];
    expect([...presentedTasks(tasks(), base.scenario, [simPlugin as never])]).toEqual(asGenerated);
    const on = withOverrides(base, { sim: { world: { schemaVersion: 1, name: 'w', params: {}, niches: { aime: { taskFamilies: 2 } } } } } as never);
    const shown = [...presentedTasks(tasks(), on.scenario, [simPlugin as never])];
    shown.forEach((t, i) => {
      const g = asGenerated[i]!;
      if (t.niche === 'aime') expect(t.question).toMatch(/^Problem type: [a-z ]+\.\n\n/);
      else expect(t).toEqual(g);
      expect(t.question.endsWith(g.question)).toBe(true);
    });
    expect(shown.some((t) => t.niche === 'aime')).toBe(true);
  });

  it('a run stopped midway resumes to the uninterrupted run\'s summary (the stream is shown the same way again)', async () => {
    const loaded = withOverrides(loadScenario(path.resolve('scenarios/hard-math.json')), { sim: { taskFamilies: 3 } } as never);
    const opts = { patch: { 'stream.tasks': 24 }, report: false } as const;
    const stable = (x: object) => JSON.stringify({ ...x, runDir: '', timing: null, reportPath: '' });
    const whole = await runScenario(loaded, { ...opts, outDir: mkdtempSync(path.join(tmpdir(), 'evo-families-')) });
    const dir = mkdtempSync(path.join(tmpdir(), 'evo-families-'));
    const stop = new AbortController();
    const first = await runScenario(loaded, { ...opts, outDir: dir, stop: stop.signal, onProgress: (p) => { if (p.done === 10) stop.abort(); } });
    expect(first.interrupted).toBe(true);
    const resumed = await resumeRun(dir, { report: false });
    expect(stable(resumed.summary)).toBe(stable(whole.summary));
    // And the families changed the run: the same stream with them off is another run.
    const off = await runScenario(loadScenario(path.resolve('scenarios/hard-math.json')), { ...opts, outDir: mkdtempSync(path.join(tmpdir(), 'evo-families-')) });
    expect(stable(off.summary)).not.toBe(stable(whole.summary));
  }, 120_000);
});
