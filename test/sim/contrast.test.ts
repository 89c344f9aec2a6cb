import { describe, expect, it } from 'vitest';
import type { SimParams } from '../../src/index';
import { algebraSpec as spec, algebraTask as task } from '../fixtures/algebra-niche';
import { buildReflectPrompt } from '../../src/individual/agent-prompts';
import type { ArchiveEntry } from '../../src/individual/archive';
import { SimModel } from '../../src/sim/sim-model';
import { SimSideChannel } from '../../src/sim/side-channel';
import { resolveSimParams } from '../../src/sim/sim-params';
import { selfDiagnosis, strategyLesson } from '../../src/sim/responders/reflect-responder';

const persona = 'You are a careful problem solver.';
const entry = (text: string): ArchiveEntry => ({
  id: text, text, niche: 'algebra', level: 'lesson', source: 'reflection', taskId: null, poolVersion: 0, key: new Float32Array([1, 0, 0, 0]),
});

/** Reflections after a failure over `n` tasks: how many lessons name one of the task's required strategies. */
async function discoveries(params: Partial<SimParams>, opts: { strong: boolean; teamWork?: (sim: SimModel, i: number) => string; ownReward?: number }, n = 200) {
  const side = new SimSideChannel();
  const sim = new SimModel({ seed: 2, sideChannel: side, params: { malformed: 0, thinkBlock: 0, ...params } });
  let found = 0;
  for (let i = 0; i < n; i++) {
    const t = task(i);
    side.taskStarted(t, spec);
    const required = sim.world.required('algebra', t.id, 3);
    // A strong agent holds all but one of the task's strategies; a weak one holds none.
    const lessons = opts.strong ? required.slice(1).map((s) => entry(strategyLesson(s, 'Algebra'))) : [];
    const out = await sim.complete({
      messages: buildReflectPrompt({
        // As the framework fills it: extracted answers, and the team's reply as written.
        persona, spec, task: t, experience: { lessons, meta: [] }, ownAnswer: '3',
        teamAnswer: opts.teamWork ? '4' : '3', teamWork: opts.teamWork?.(sim, i) ?? 'I worked it through.\n\\boxed{3}',
        reward: opts.ownReward ?? 0, correct: (opts.ownReward ?? 0) === 1,
      }),
      stage: 'reflect', taskId: t.id, seedKey: `r/${i}`,
    });
    const lesson = (JSON.parse(out.text) as { lesson: string }).lesson;
    const names = new Set(sim.world.mentioned(lesson).map((s) => s.phrase));
    if (required.some((s) => names.has(s.phrase))) found++;
  }
  return found / n;
}

describe('knowledge from contrast: self-diagnosis falls with difficulty and incompetence', () => {
  it('selfDiagnosis is exactly 1 with both settings at 0, and falls with the level and with what the agent lacks', () => {
    const p0 = resolveSimParams();
    expect(selfDiagnosis(p0, 5, 0)).toBe(1);
    const p = resolveSimParams({ reflectDifficulty: 0.2, reflectCompetence: 0.8 });
    expect(selfDiagnosis(p, 5, 1)).toBeCloseTo(Math.exp(-1), 10);
    expect(selfDiagnosis(p, 5, 0)).toBeCloseTo(Math.exp(-1) * 0.2, 10);
    expect(selfDiagnosis(p, 1, 0)).toBeGreaterThan(selfDiagnosis(p, 5, 0));
  });

  it('after a failure a weak agent alone rarely finds a missing strategy; a strong one still does', async () => {
    const params = { discoverOnFailure: 1, reflectCompetence: 0.9 };
    const weak = await discoveries(params, { strong: false });
    const strong = await discoveries(params, { strong: true });
    expect(weak).toBeLessThan(0.2);
    expect(strong).toBeGreaterThan(0.6);
    // Off, the weak agent finds one as often as the strong (the world as it was).
    expect(await discoveries({ discoverOnFailure: 1 }, { strong: false })).toBeGreaterThan(0.9);
  });

  it('a failing member reading how a right team answer was reached takes up a strategy it names (contrastUptake); none at 0', async () => {
    const teamWork = (sim: SimModel, i: number) => `I apply the ${sim.world.required('algebra', task(i).id, 3)[0]!.phrase}.\n\\boxed{4}`;
    // Self-discovery off, so every lesson naming a required strategy comes from the contrast.
    const off = { discoverOnSuccess: 0, discoverOnFailure: 0 };
    expect(await discoveries({ ...off, contrastUptake: 1 }, { strong: false, teamWork })).toBe(1);
    expect(await discoveries({ ...off, contrastUptake: 0 }, { strong: false, teamWork })).toBe(0);
    const half = await discoveries({ ...off, contrastUptake: 0.5 }, { strong: false, teamWork });
    expect(half).toBeGreaterThan(0.35);
    expect(half).toBeLessThan(0.65);
    // No contrast when the team's answer is as wrong as the member's, or when the member's own answer was right.
    expect(await discoveries({ ...off, contrastUptake: 1 }, { strong: false })).toBe(0);
    expect(await discoveries({ ...off, contrastUptake: 1 }, { strong: false, teamWork, ownReward: 1 })).toBe(0);
  });

  it('the framework shows the team\'s reply in the reflection prompt (think blocks dropped, clipped), not only its extracted answer', () => {
    const base = { persona, spec, task: task(0), experience: { lessons: [], meta: [] }, ownAnswer: '3', teamAnswer: '4', reward: 0, correct: false };
    const shown = buildReflectPrompt({ ...base, teamWork: '<think>\nhidden musing\n</think>\nI apply the substitution.\n\\boxed{4}' })[1]!.content;
    expect(shown).toContain('How the team reached it: I apply the substitution.\n\\boxed{4}');
    expect(shown).not.toContain('hidden musing');
    expect(buildReflectPrompt({ ...base, teamWork: 'x'.repeat(2000) })[1]!.content).toContain(`${'x'.repeat(600)}…\nReward:`);
    expect(buildReflectPrompt(base)[1]!.content).toContain('How the team reached it: (not shown)');
    expect(buildReflectPrompt({ ...base, teamWork: null })[1]!.content).toContain('How the team reached it: (no reply)');
  });
});
