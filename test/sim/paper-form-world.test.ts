import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadScenario, runScenario } from '../../src/index';
import { withOverrides } from '../../src/engine/scenario/scenario';
import { loadWorldFile, PAPER_FORM_FIT_PARAMS, parseFitName } from '../../src/sim/sim-world-file';
import { mechanismProbes, pairedDifference } from '../bench/signal-probes';

describe('the paper-form world', () => {
  it('loads, turns every mechanism of the paper form on, and each of its settings can be named to a fit', () => {
    const w = loadWorldFile('paper-form');
    for (const p of ['reflectDifficulty', 'reflectCompetence', 'contrastUptake', 'familyRarity', 'foreignMislead', 'expertise', 'offNichePersona', 'leaderRetry', 'stepUptake', 'taskFamilies', 'contextBudget']) {
      expect((w.params as Record<string, number>)[p], p).toBeGreaterThan(0);
    }
    for (const p of PAPER_FORM_FIT_PARAMS) expect(parseFitName(p, w).start, p).toBeGreaterThanOrEqual(0);
    expect(parseFitName('expertise@aime-2024', w).niche).toBe('aime-2024');
  });

  it('runs hard-math-5 under it, the same seed giving the same summary and events', async () => {
    const loaded = withOverrides(loadScenario(path.resolve('scenarios/hard-math-5.json')), { sim: { world: 'paper-form' } } as Parameters<typeof withOverrides>[1]);
    const run = async () => {
      const outDir = mkdtempSync(path.join(tmpdir(), 'evo-paper-form-'));
      const { summary, runDir } = await runScenario(loaded, { patch: { 'stream.tasks': 40 }, report: false, outDir });
      // Ids, clock times, wall time and the output directory differ between two runs; nothing else may.
      const clock = new Set(['id', 'time', 'wallSeconds', 'tasksPerSecond', 'runDir']);
      const clean = (text: string) => JSON.parse(text, (k, v) => (clock.has(k) ? undefined : v)) as Record<string, unknown>;
      const events = readFileSync(path.join(runDir, 'events.jsonl'), 'utf8').split('\n').filter(Boolean).map(clean);
      return { summary: clean(JSON.stringify(summary)), events };
    };
    const a = await run();
    const b = await run();
    expect(a.summary.graded).toBe(40);
    expect(b).toEqual(a);
    // The paper's labels: the AIME years are niches of their own.
    expect(Object.keys(a.summary.perNiche as object).some((n) => n.startsWith('aime-20'))).toBe(true);
  });
});

describe('the mechanism probes of the signal bench', () => {
  const reader = {
    named: (t: string) => [...t.matchAll(/s(\d)/g)].map((m) => ({ phrase: `s${m[1]}`, scope: 'n' })),
    required: () => [],
  };
  it('count deliveries after task `after` new to their receiver, and strategies held per agent per niche by part', () => {
    const events = [
      { type: 'agent.spawned', agentId: 'a' }, { type: 'agent.spawned', agentId: 'b' },
      { type: 'task.started' }, { type: 'lesson.added', agentId: 'a', text: 's1 s2' }, { type: 'task.graded' },
      { type: 'task.started' }, { type: 'codream.insight', insightId: 'i', text: 's1' },
      { type: 'insight.routed', insightId: 'i', to: 'a' }, { type: 'insight.routed', insightId: 'i', to: 'b' }, { type: 'task.graded' },
    ];
    const p = mechanismProbes(events, reader, ['n'], 1, 2);
    expect(p.late).toEqual({ deliveries: 2, newDeliveries: 1 });
    expect(p.heldByPart).toEqual([1, 1.5]);
  });

  it('pair differences by seed, with the standard error of their mean', () => {
    const d = pairedDifference([0.5, 0.6, 0.7], [0.4, 0.6, 0.5]);
    expect(d.mean).toBeCloseTo(0.1, 10);
    expect(d.se).toBeCloseTo(0.1 / Math.sqrt(3), 10);
  });
});
