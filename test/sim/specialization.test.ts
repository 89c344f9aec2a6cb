import { describe, expect, it } from 'vitest';
import type { NicheSpec, SimParams } from '../../src/index';
import { algebraSpec as spec, algebraTask as task } from '../fixtures/algebra-niche';
import { buildSolvePrompt } from '../../src/individual/agent-prompts';
import type { ArchiveEntry } from '../../src/individual/archive';
import { readPrompt } from '../../src/sim/prompt-reader';
import { SimModel } from '../../src/sim/sim-model';
import { SimSideChannel } from '../../src/sim/side-channel';
import { resolveSimParams } from '../../src/sim/sim-params';
import { strategyLesson } from '../../src/sim/responders/reflect-responder';
import { specialisedElsewhere, specializationBonus } from '../../src/sim/responders/specialization';
import { personaResponder } from '../../src/sim/responders/persona-responder';
import { createRng } from '../../src/core/rng';

const generalist = 'You are a careful problem solver.';
const entry = (text: string): ArchiveEntry => ({
  id: text, text, niche: 'algebra', level: 'lesson', source: 'reflection', taskId: null, poolVersion: 0, key: new Float32Array([1, 0, 0, 0]),
});
const geometry: NicheSpec = { ...spec, id: 'geometry', title: 'Geometry', keywords: ['triangles', 'circles'] };

/** The persona the simulated persona writer gives a generalist for `niche`. */
function writtenPersona(sim: SimModel, niche: NicheSpec): string {
  const body = `## Write a persona\nSpecialise.\n\nCurrent persona:\n${generalist}\n\nArea: ${niche.title}: ${niche.description}\nKeywords of the area: ${niche.keywords.join(', ')}\n`;
  const reply = personaResponder({ prompt: readPrompt([{ role: 'user', content: body }]), entry: undefined, world: sim.world, params: { ...sim.params, malformed: 0 }, rng: createRng('p') });
  return (JSON.parse(reply.text) as { persona: string }).persona;
}

/** Accuracy over `n` level-3 tasks of an author with `persona` and `known` niche strategies that no task needs beyond its own. */
async function accuracy(params: Partial<SimParams>, persona: (sim: SimModel) => string, known: number, n = 400) {
  const side = new SimSideChannel();
  const sim = new SimModel({ seed: 5, sideChannel: side, params: { malformed: 0, strategiesPerNiche: 24, base: 3, ...params } });
  let right = 0;
  for (let i = 0; i < n; i++) {
    const t = task(i);
    side.taskStarted(t, spec);
    const need = new Set(sim.world.required('algebra', t.id, 3).map((s) => s.phrase));
    const lessons = sim.world.nicheStrategies('algebra').filter((s) => !need.has(s.phrase)).slice(0, known).map((s) => entry(strategyLesson(s, 'Algebra')));
    const out = await sim.complete({ messages: buildSolvePrompt(persona(sim), spec, t, { lessons, meta: [] }), stage: 'solve', taskId: t.id, seedKey: `s/${i}` });
    if (/\\boxed\{4\}/.test(out.text)) right++;
  }
  return right / n;
}

describe('specialization with an edge and a cost (expertise, offNichePersona)', () => {
  it('the bonus is exactly 0 at the defaults, grows with niche know-how and saturates', () => {
    const sim = new SimModel({ seed: 5, params: { strategiesPerNiche: 24 } });
    const t = task(1);
    const prompt = (k: number) => readPrompt(buildSolvePrompt(generalist, spec, t, {
      lessons: sim.world.nicheStrategies('algebra').slice(0, k).map((s) => entry(strategyLesson(s, 'Algebra'))), meta: [],
    }));
    expect(specializationBonus(sim.world, resolveSimParams(), prompt(6), t, spec)).toBe(0);
    const p = resolveSimParams({ expertise: 1, expertiseSaturation: 4 });
    expect(specializationBonus(sim.world, p, prompt(0), t, spec)).toBe(0);
    expect(specializationBonus(sim.world, p, prompt(2), t, spec)).toBeCloseTo(0.5, 10);
    expect(specializationBonus(sim.world, p, prompt(6), t, spec)).toBe(1);
  });

  it('a persona written for another niche interferes; one for this niche, or a generalist, does not', () => {
    const sim = new SimModel({ seed: 5 });
    expect(specialisedElsewhere(writtenPersona(sim, geometry), spec)).toBe(true);
    expect(specialisedElsewhere(writtenPersona(sim, spec), spec)).toBe(false);
    expect(specialisedElsewhere(generalist, spec)).toBe(false);
  });

  it('in accuracy: know-how helps a specialist, another niche\'s persona costs, and at 0 neither changes anything', async () => {
    const plain = () => generalist;
    const other = (sim: SimModel) => writtenPersona(sim, geometry);
    const novice = await accuracy({}, plain, 0);
    expect(await accuracy({}, plain, 4)).toBe(novice);
    expect(await accuracy({ expertise: 1.5 }, plain, 4)).toBeGreaterThan(novice + 0.15);
    expect(await accuracy({}, other, 0)).toBe(novice);
    expect(await accuracy({ offNichePersona: 1.5 }, other, 0)).toBeLessThan(novice - 0.15);
  });
});
