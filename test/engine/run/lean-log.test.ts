/**
 * A run that writes only some event types (a calibration's evaluations, plan's pilots): the run is
 * the same run, its summary byte for byte, and its log holds exactly the full log's lines of the
 * types kept (same seq, same fields) plus the run's own events.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadScenario, runScenario } from '../../../src/index';
import { EventLog } from '../../../src/store/event-log';

const dirs: string[] = [];
const out = () => { const d = mkdtempSync(path.join(tmpdir(), 'evo-lean-')); dirs.push(d); return d; };
afterAll(() => { for (const d of dirs) rmSync(d, { recursive: true, force: true }); });
/** Lines without what differs between any two runs (ids, wall-clock stamps). */
const lines = (dir: string) => readFileSync(path.join(dir, 'events.jsonl'), 'utf8').trim().split('\n').map((l) => {
  const { id: _id, time: _time, ...rest } = JSON.parse(l) as Record<string, unknown>;
  return JSON.stringify(rest);
});

describe('a log that keeps only some event types', () => {
  it('leaves the run and its summary unchanged and keeps the full log\'s lines of those types', async () => {
    const quickstart = loadScenario(path.resolve('scenarios/quickstart.json'));
    const patch = { 'stream.tasks': 24, variant: 'evochamber' };
    const full = await runScenario(quickstart, { patch, report: false, outDir: out() });
    const lean = await runScenario(quickstart, { patch, report: false, outDir: out(), logEvents: ['task.graded'] });
    const { runDir: _a, timing: _b, ...fullSummary } = full.summary as unknown as Record<string, unknown>;
    const { runDir: _c, timing: _d, ...leanSummary } = lean.summary as unknown as Record<string, unknown>;
    expect(JSON.stringify(leanSummary)).toBe(JSON.stringify(fullSummary));
    const kept = lines(full.runDir).filter((l) => /"type":"(task\.graded|run\.[a-z]+)"/.test(l));
    expect(kept.filter((l) => l.includes('"task.graded"'))).toHaveLength(24);
    expect(lines(lean.runDir)).toEqual(kept);
  });

  it('cannot be resumed', () => {
    expect(() => new EventLog(path.join(out(), 'events.jsonl'), { write: new Set(['task.graded']), resume: { resumed: { at: '2026-01-01T00:00:00.000Z' } } })).toThrow(/cannot be resumed/);
  });
});
