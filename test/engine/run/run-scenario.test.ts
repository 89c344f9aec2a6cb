import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadScenario, runScenario, type RunSummary } from '../../../src/index';
import { RunStore } from '../../../src/store/run-store';
import { ASSEMBLERS } from '../../../src/engine/scenario/presets';

const quickstart = loadScenario(path.resolve('scenarios/quickstart.json'));
const out = () => mkdtempSync(path.join(tmpdir(), 'evo-run-'));
const stable = (s: RunSummary) => JSON.stringify({ ...s, runDir: undefined, timing: undefined, reportPath: undefined });

describe('runScenario on the simulated model', () => {
  it('runs the stream end to end and writes run.json and an append-only event log', async () => {
    const dir = out();
    const { summary } = await runScenario(quickstart, { variant: 'individual', tasks: 36, outDir: dir, report: false });
    expect(summary.tasks).toBe(36);
    expect(summary.accuracy).toBeGreaterThan(0);
    expect(summary.accuracy).toBeLessThan(1);
    expect(Object.keys(summary.perNiche).sort()).toEqual(
      ['algebra', 'arithmetic', 'list-functions', 'people-qa', 'string-functions', 'timeline-qa'],
    );
    expect(summary.tokens.solve!.calls).toBe(36);
    expect(summary.tokens.reflect!.calls).toBe(36);
    expect(summary.agents.lessons).toBeGreaterThan(0);

    const store = await RunStore.open(dir);
    expect(store.data.status).toBe('finished');
    expect(store.data.schemaVersion).toBe(1);
    expect((store.data.summary as unknown as RunSummary).accuracy).toBe(summary.accuracy);

    const events = readFileSync(path.join(dir, 'events.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    const types = new Set(events.map((e) => e.type));
    for (const t of ['run.started', 'agent.spawned', 'task.started', 'attempt', 'task.graded', 'reflection', 'lesson.added', 'competence.updated', 'task.done', 'run.finished']) {
      expect(types, t).toContain(t);
    }
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i));
    expect(new Set(events.map((e) => e.id)).size).toBe(events.length);
    expect(events.filter((e) => e.type === 'task.done')).toHaveLength(36);
  });

  it('gives a byte-identical summary for the same seed and a different one for another seed', async () => {
    const a = await runScenario(quickstart, { tasks: 30, seed: 3, report: false, outDir: out() });
    const b = await runScenario(quickstart, { tasks: 30, seed: 3, report: false, outDir: out() });
    const c = await runScenario(quickstart, { tasks: 30, seed: 4, report: false, outDir: out() });
    expect(stable(a.summary)).toBe(stable(b.summary));
    expect(stable(a.summary)).not.toBe(stable(c.summary));
  });

  it('is deterministic with many tasks in flight too, and commits every task once', async () => {
    const a = await runScenario(quickstart, { tasks: 40, inFlight: 8, report: false, outDir: out() });
    const b = await runScenario(quickstart, { tasks: 40, inFlight: 8, report: false, outDir: out() });
    expect(stable(a.summary)).toBe(stable(b.summary));
    expect(a.summary.tasks).toBe(40);
    // One update per solve commit and one per applied evolve stage.
    expect(a.summary.poolVersion).toBe(40 + a.summary.evolve.applied);
    expect(a.summary.evolve.applied).toBe(40);
  });

  it('runs the single-agent and self-consistency baselines with one agent and no memory', async () => {
    const sa = await runScenario(quickstart, { tasks: 12, variant: 'single-agent', report: false, outDir: out() });
    expect(sa.summary.agents.count).toBe(1);
    expect(sa.summary.tokens.reflect).toBeUndefined();
    const sc = await runScenario(quickstart, { tasks: 12, variant: 'self-consistency', report: false, outDir: out() });
    // k matched to the full system's team size: SC pays a team's solve calls.
    expect(sc.summary.tokens.solve!.calls).toBe(12 * ASSEMBLERS.roles!.teamSize);
  });

  it('records a task whose model call keeps failing instead of dropping it', async () => {
    const broken = {
      name: 'broken',
      complete: async () => { throw new Error('endpoint down'); },
      embed: async (texts: readonly string[]) => texts.map(() => new Float32Array(256)),
    };
    const { summary, runDir } = await runScenario(quickstart, { tasks: 6, model: broken, report: false, outDir: out() });
    expect(summary.tasks).toBe(6);
    expect(summary.accuracy).toBe(0);
    expect(summary.failures).toBe(6);
    expect(summary.graded).toBe(0);
    expect(summary.failuresByStage.solve).toBe(6);
    expect(summary.perNiche).toEqual({});
    const events = readFileSync(path.join(runDir, 'events.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    const attempts = events.filter((e) => e.type === 'attempt');
    expect(attempts.length).toBeGreaterThanOrEqual(6);
    expect(attempts.every((e) => e.error === 'endpoint down')).toBe(true);
    expect(events.filter((e) => e.type === 'task.done')).toHaveLength(6);
    // Failed, not wrong: no task is graded, nothing is learned from the outage.
    expect(events.filter((e) => e.type === 'task.graded')).toHaveLength(0);
    expect(events.filter((e) => e.type === 'task.failed' && e.stage === 'solve')).toHaveLength(6);
    for (const t of ['competence.updated', 'lesson.added', 'leadlearn.entry', 'synergy.updated', 'codream.insight']) {
      expect(events.filter((e) => e.type === t)).toHaveLength(0);
    }
  });
});
