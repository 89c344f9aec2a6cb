import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/clock';
import { buildReportData, reportDataSchema, type ReportData } from '../../src/report';
import { FIXTURE_NICHES, FIXTURE_TASKS, writeFixtureRun } from './fixture-run';

const tmp = () => mkdtempSync(path.join(tmpdir(), 'evo-data-'));
const build = (dir: string) => buildReportData(dir, { clock: new ManualClock(), outDir: path.join(dir, 'report') });

describe('report data from a log with population events', () => {
  let d: ReportData;
  beforeAll(async () => {
    d = await build(writeFixtureRun(path.join(tmp(), 'fixture')));
  });

  it('is valid against its schema and says where it came from', () => {
    expect(reportDataSchema.safeParse(d).success).toBe(true);
    expect(d.run).toMatchObject({ scenario: 'fixture', variant: 'evochamber', seed: 7, tasksDone: FIXTURE_TASKS, finished: true });
    expect(d.niches).toEqual([...FIXTURE_NICHES]);
    expect(d.generatedAt).toBe('2026-01-01T00:00:00.000Z');
    // The fixture's run.json is version 1 (no patch): the settings its config holds stand in for the patch.
    expect(d.reproduce.fromOriginal).toBe('npx evochamber run scenarios/fixture.json --set variant=evochamber --set seed=7 --set stream.tasks=60');
  });

  it('uses the lifecycle windows as the competence windows', () => {
    expect(d.competence.windowSource).toBe('lifecycle');
    expect(d.competence.windows.map((w) => w.tasksSeen)).toEqual([15, 30, 45, 60]);
    // Retired agents leave the final picture; agents born late join it.
    const finalAgents = new Set(d.competence.final.map((c) => c.agentId));
    expect(finalAgents.has('agent-04')).toBe(false);
    expect(finalAgents.has('agent-06')).toBe(true);
  });

  it('anchors each niche on its most competent exposed agent, and keeps what the lifecycle recorded', () => {
    const last = d.specialists.filter((s) => s.window === 4);
    expect(last.map((s) => s.niche)).toEqual([...FIXTURE_NICHES]);
    for (const s of last) {
      const w = d.competence.windows.at(-1)!;
      const best = Math.max(...w.cells.filter((c) => c.niche === s.niche && c.exposure > 0).map((c) => c.competence));
      expect(s.competence).toBe(best);
      expect(s.recognized).not.toBeUndefined();
    }
    expect(last.find((s) => s.niche === 'arithmetic')!.agentId).toBe('agent-01');
  });

  it('records the lineage with parents, reasons, retirements and successors', () => {
    expect(d.agents.map((a) => [a.agentId, a.origin])).toEqual([
      ['agent-01', 'seed'], ['agent-02', 'seed'], ['agent-03', 'seed'], ['agent-04', 'seed'],
      ['agent-05', 'fork'], ['agent-06', 'merge'], ['agent-07', 'genesis'],
    ]);
    const merge = d.agents.find((a) => a.agentId === 'agent-06')!;
    expect(merge).toMatchObject({ parents: ['agent-01', 'agent-03'], spawnedAt: 45, reason: 'merge of two overlapping agents' });
    expect(d.agents.find((a) => a.agentId === 'agent-04')).toMatchObject({ retiredAt: 30, successor: 'agent-05' });
    expect(d.lineage.decisions.map((x) => x.operator)).toEqual(['fork', 'prune', 'merge', 'specialize', 'genesis']);
    expect(d.lineage.personas).toEqual([expect.objectContaining({ agentId: 'agent-02', reason: 'anchors algebra', tasksSeen: 45 })]);
  });

  it('counts CoDream flows per author, routed insights once each', () => {
    const sessions = d.codream.sessions.reduce((a, s) => a + s.count, 0);
    expect(sessions).toBeGreaterThan(0);
    expect(d.codream.routed).toBe(sessions * 2);
    expect(d.codream.flows.reduce((a, f) => a + f.count, 0)).toBe(d.codream.routed);
    expect(d.codream.routedByNiche.reduce((a, f) => a + f.count, 0)).toBe(d.codream.routed);
    expect(d.codream.routedByNiche.some((f) => f.niche === null && f.level === 'cross-domain')).toBe(true);
  });

  it('tracks rolling accuracy per niche, block boundaries and structures', () => {
    expect(d.accuracy.blocks).toEqual([{ task: 31, block: 1 }]);
    expect(d.accuracy.perNiche.map((p) => p.tasks)).toEqual([20, 20, 20]);
    for (const n of FIXTURE_NICHES) expect(d.accuracy.series.filter((p) => p.niche === n)).toHaveLength(20);
    const total = Object.values(d.structures.totals).flatMap((m) => Object.values(m)).reduce((a, b) => a + b, 0);
    expect(total).toBe(FIXTURE_TASKS);
    expect(d.structures.bins.reduce((a, b) => a + b.count, 0)).toBe(FIXTURE_TASKS);
  });

  it('takes cost per stage from the run summary, every stage listed', () => {
    expect(d.cost.source).toBe('summary');
    expect(d.cost.stages.map((s) => s.stage)).toEqual(['solve', 'reflect', 'leadlearn', 'codream', 'lifecycle']);
    expect(d.cost.wallSeconds).toBe(2.5);
  });
});

describe('report data from a log without population events', () => {
  it('makes up ten equal windows and leaves lineage and CoDream empty', async () => {
    const dir = writeFixtureRun(path.join(tmp(), 'plain'));
    const events = readFileSync(path.join(dir, 'events.jsonl'), 'utf8').split('\n')
      .filter((l) => !/"type":"(lifecycle\.|agent\.retired|agent\.persona|codream\.|insight\.routed)/.test(l))
      .filter((l) => !/"origin":"(fork|merge|genesis)"/.test(l));
    writeFileSync(path.join(dir, 'events.jsonl'), events.join('\n'));
    const d = await build(dir);
    expect(d.competence.windowSource).toBe('synthetic');
    expect(d.competence.windows.map((w) => w.tasksSeen)).toEqual([6, 12, 18, 24, 30, 36, 42, 48, 54, 60]);
    expect(d.specialists).toHaveLength(10 * FIXTURE_NICHES.length);
    expect(d.specialists.every((s) => s.recognized === null)).toBe(true);
    expect(d.lineage.decisions).toEqual([]);
    expect(d.codream.routed).toBe(0);
    // Agents whose spawn line is gone still appear (origin unknown), so nothing they did is lost.
    expect(d.agents.filter((a) => a.origin !== 'seed').map((a) => [a.agentId, a.origin])).toEqual([['agent-05', 'unknown'], ['agent-06', 'unknown'], ['agent-07', 'unknown']]);
  });

  it('counts events with the wrong fields as malformed instead of failing', async () => {
    const dir = writeFixtureRun(path.join(tmp(), 'malformed'));
    writeFileSync(path.join(dir, 'events.jsonl'), `${readFileSync(path.join(dir, 'events.jsonl'), 'utf8')}{"type":"task.graded","taskId":"x"}\n`);
    const d = await build(dir);
    expect(d.log.malformed).toEqual({ 'task.graded': 1 });
    expect(d.accuracy.perNiche.reduce((a, p) => a + p.tasks, 0)).toBe(FIXTURE_TASKS);
  });
});
