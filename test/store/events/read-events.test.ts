import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/core/clock';
import { buildReportData, openRunDirectory } from '../../../src/report';
import { readRunEvents, readRunEventsSync, type LoggedEvent, type ReadStats } from '../../../src/store/events';
import { writeFixtureRun } from '../../report/fixture-run';

const tmp = () => mkdtempSync(path.join(tmpdir(), 'evo-read-'));

/** A run directory holding only an events.jsonl with `text`. */
function logDir(text: string): string {
  const dir = tmp();
  writeFileSync(path.join(dir, 'events.jsonl'), text);
  return dir;
}

async function readAll(dir: string, opts: Parameters<typeof readRunEvents>[1] = {}): Promise<{ seen: LoggedEvent[]; stats: ReadStats }> {
  const events = readRunEvents(dir, opts);
  const seen: LoggedEvent[] = [];
  for await (const e of events) seen.push(e);
  return { seen, stats: events.stats };
}

const a = '{"seq":0,"type":"run.started","scenario":"s","variant":"v","seed":1,"tasks":2}';
const b = '{"seq":1,"type":"task.started","taskId":"t1","niche":"n","difficulty":1,"block":0,"poolVersion":0}';

describe('readRunEvents', () => {
  it('streams every event in file order, typed by the catalogue', async () => {
    const { seen, stats } = await readAll(logDir(`${a}\n${b}\n`));
    expect(seen.map((e) => e.type)).toEqual(['run.started', 'task.started']);
    const e = seen[1]!;
    expect(e.type === 'task.started' && e.niche).toBe('n');
    expect(stats).toMatchObject({ lines: 2, events: 2, skippedCount: 0, unknown: 0 });
  });

  it('gives only the asked types', async () => {
    const { seen, stats } = await readAll(logDir(`${a}\n${b}\n`), { types: ['task.started'] });
    expect(seen.map((e) => (e.type === 'task.started' ? e.taskId : null))).toEqual(['t1']);
    expect(stats.events).toBe(1);
    expect(readRunEventsSync(logDir(`${a}\n${b}\n`), { types: ['run.started'] }).map((e) => e.seed)).toEqual([1]);
  });

  it('skips an event of a type it does not know (a newer writer\'s), and counts it, without stopping', async () => {
    const { seen, stats } = await readAll(logDir(`${a}\n{"seq":1,"type":"future.thing","x":1}\n${b}\n`));
    expect(seen.map((e) => e.type)).toEqual(['run.started', 'task.started']);
    expect(stats).toMatchObject({ lines: 3, events: 2, unknown: 1, skippedCount: 0 });
  });

  it('skips a truncated last line and says it was the last one', async () => {
    const { seen, stats } = await readAll(logDir(`${a}\n${b}\n{"seq":2,"ty`));
    expect(seen).toHaveLength(2);
    expect(stats.skippedCount).toBe(1);
    expect(stats.skipped[0]).toMatchObject({ line: 3, last: true });
    expect(stats.skipped[0]!.reason).toMatch(/not JSON/);
  });

  it('skips a garbled line in the middle, and lines that are not events, without stopping', async () => {
    const text = `${a}\nnot json at all\n[1,2]\n{"no":"type"}\n\n${b}\n`;
    const { seen, stats } = await readAll(logDir(text));
    expect(seen.map((e) => e.type)).toEqual(['run.started', 'task.started']);
    expect(stats.skippedCount).toBe(3);
    expect(stats.skipped.map((s) => s.last)).toEqual([false, false, false]);
    expect(stats.skipped.map((s) => s.reason)).toEqual([expect.stringMatching(/not JSON/), 'not a JSON object', 'no "type" field']);
  });

  it('reads an empty log as no events', async () => {
    const { seen, stats } = await readAll(logDir(''));
    expect(seen).toEqual([]);
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

describe('readRunEvents().forEach', () => {
  it('gives the same events and stats as iterating, past a batch boundary', async () => {
    const lines = Array.from({ length: 600 }, (_, i) => JSON.stringify({ seq: i, type: i % 7 ? 'task.started' : 'future.kind', taskId: `t${i}` }));
    const dir = logDir(`${lines.join('\n')}\n{"seq":600,"ty`);
    const { seen, stats } = await readAll(dir);
    const each: LoggedEvent[] = [];
    const stats2 = await readRunEvents(dir).forEach((e) => each.push(e));
    expect(each).toEqual(seen);
    expect(stats2).toEqual(stats);
    expect(stats).toMatchObject({ events: 514, unknown: 86, skippedCount: 1 });
  });
});
