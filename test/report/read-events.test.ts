import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/clock';
import { buildReportData, openRunDirectory, readEventLog, type RunEvent } from '../../src/report';
import { writeFixtureRun } from './fixture-run';

const tmp = () => mkdtempSync(path.join(tmpdir(), 'evo-read-'));

function logFile(text: string): string {
  const file = path.join(tmp(), 'events.jsonl');
  writeFileSync(file, text);
  return file;
}

describe('readEventLog', () => {
  it('streams every event in file order', async () => {
    const seen: RunEvent[] = [];
    const stats = await readEventLog(logFile('{"seq":0,"type":"a"}\n{"seq":1,"type":"b","x":1}\n'), (e) => seen.push(e));
    expect(seen.map((e) => e.type)).toEqual(['a', 'b']);
    expect(seen[1]!.x).toBe(1);
    expect(stats).toMatchObject({ lines: 2, events: 2, skippedCount: 0 });
  });

  it('skips a truncated last line and says it was the last one', async () => {
    const seen: RunEvent[] = [];
    const stats = await readEventLog(logFile('{"seq":0,"type":"a"}\n{"seq":1,"type":"b"}\n{"seq":2,"ty'), (e) => seen.push(e));
    expect(seen).toHaveLength(2);
    expect(stats.skippedCount).toBe(1);
    expect(stats.skipped[0]).toMatchObject({ line: 3, last: true });
    expect(stats.skipped[0]!.reason).toMatch(/not JSON/);
  });

  it('skips a garbled line in the middle, and lines that are not events, without stopping', async () => {
    const seen: RunEvent[] = [];
    const text = '{"type":"a"}\nnot json at all\n[1,2]\n{"no":"type"}\n\n{"type":"b"}\n';
    const stats = await readEventLog(logFile(text), (e) => seen.push(e));
    expect(seen.map((e) => e.type)).toEqual(['a', 'b']);
    expect(stats.skippedCount).toBe(3);
    expect(stats.skipped.map((s) => s.last)).toEqual([false, false, false]);
    expect(stats.skipped.map((s) => s.reason)).toEqual([expect.stringMatching(/not JSON/), 'not a JSON object', 'no "type" field']);
  });

  it('reads an empty log as no events', async () => {
    const stats = await readEventLog(logFile(''), () => { throw new Error('no event expected'); });
    expect(stats).toMatchObject({ lines: 0, events: 0, skippedCount: 0 });
  });
});

describe('openRunDirectory', () => {
  it('fails clearly on a directory that is not a run', async () => {
    await expect(openRunDirectory(tmp())).rejects.toThrow(/no run\.json/);
    await expect(openRunDirectory('/nonexistent/evo-run')).rejects.toThrow(/no such directory/);
  });
});

describe('a run killed mid-write', () => {
  it('still reports: the truncated line is counted and the run is marked unfinished', async () => {
    const dir = writeFixtureRun(path.join(tmp(), 'killed'), { truncate: true });
    const d = await buildReportData(dir, { clock: new ManualClock(), outDir: path.join(dir, 'report') });
    expect(d.log.skippedCount).toBe(1);
    expect(d.log.skipped[0]!.last).toBe(true);
    expect(d.run.finished).toBe(false);
    expect(d.run.tasksDone).toBe(60);
    // No summary in run.json: cost falls back to the log (solve attempts and CoDream sessions).
    expect(d.cost.source).toBe('events');
    expect(d.cost.stages.find((s) => s.stage === 'solve')!.calls).toBe(60);
    expect(d.cost.stages.find((s) => s.stage === 'codream')!.calls).toBeGreaterThan(0);
    expect(d.cost.wallSeconds).toBeNull();
  });
});
