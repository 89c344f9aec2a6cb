import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/clock';
import { loadScenario, runScenario, type RunSummary } from '../../src/index';
import { buildReportData } from '../../src/report/build-report-data';

// A run that dies has no summary in run.json: its report must take cost and wall time from the
// events alone, and they must agree with what the summary would have said.
describe('report cost from events', () => {
  let runDir: string;
  let summary: RunSummary;
  beforeAll(async () => {
    const root = mkdtempSync(path.join(tmpdir(), 'evo-cost-'));
    ({ runDir, summary } = await runScenario(loadScenario(path.resolve('scenarios/quickstart.json')), { patch: { 'stream.tasks': 40 }, outDir: path.join(root, 'run'), report: false }));
    const runJson = JSON.parse(readFileSync(path.join(runDir, 'run.json'), 'utf8')) as Record<string, unknown>;
    writeFileSync(path.join(runDir, 'run.json'), JSON.stringify({ ...runJson, status: 'crashed', summary: null }));
  });

  it('every task.done and evolve.applied carries its calls and tokens by stage, and with lifecycle.usage they add up to the summary', () => {
    const events = readFileSync(path.join(runDir, 'events.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, any>);
    const done = events.filter((e) => e.type === 'task.done');
    expect(done).toHaveLength(40);
    for (const e of done) expect(e.tokens.solve.calls).toBeGreaterThan(0);
    expect(events.every((e) => typeof e.time === 'string' && Number.isFinite(Date.parse(e.time)))).toBe(true);
    const sum: Record<string, number> = {};
    expect(events.filter((e) => e.type === 'evolve.applied').length).toBeGreaterThan(0);
    for (const e of events.filter((x) => x.type === 'task.done' || x.type === 'evolve.applied' || x.type === 'lifecycle.usage')) {
      for (const [stage, u] of Object.entries(e.tokens as Record<string, { calls: number; completionTokens: number }>)) {
        sum[`${stage}.calls`] = (sum[`${stage}.calls`] ?? 0) + u.calls;
        sum[`${stage}.completion`] = (sum[`${stage}.completion`] ?? 0) + u.completionTokens;
      }
    }
    const want: Record<string, number> = {};
    for (const [stage, u] of Object.entries(summary.tokens)) {
      if (stage === 'total') continue;
      want[`${stage}.calls`] = u.calls;
      want[`${stage}.completion`] = u.completionTokens;
    }
    expect(sum).toEqual(want);
  });

  it('the report of a run without a summary shows the same cost per stage, and a wall time from the events', async () => {
    const d = await buildReportData(runDir, { clock: new ManualClock(), outDir: path.join(runDir, 'report') });
    expect(d.cost.source).toBe('events');
    for (const s of d.cost.stages) {
      const u = summary.tokens[s.stage];
      expect({ stage: s.stage, calls: s.calls, prompt: s.promptTokens, completion: s.completionTokens })
        .toEqual({ stage: s.stage, calls: u?.calls ?? 0, prompt: u?.promptTokens ?? 0, completion: u?.completionTokens ?? 0 });
    }
    expect(d.cost.wallSeconds).toBeGreaterThan(0);
  });
});
