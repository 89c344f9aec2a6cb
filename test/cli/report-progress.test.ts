import { mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { reportProgress } from '../../src/cli/report-progress';
import { readRunEvents } from '../../src/store/events';

describe('report progress on long logs', () => {
  it('the reader tells the bytes read as it goes, ending at the file size', async () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'evo-progress-')), 'events.jsonl');
    const line = JSON.stringify({ type: 'attempt', seq: 1, text: 'x'.repeat(200) });
    writeFileSync(file, `${Array.from({ length: 30_000 }, () => line).join('\n')}\n`);
    const seen: number[] = [];
    const events = readRunEvents(path.dirname(file), { onProgress: (read, total) => { expect(total).toBe(statSync(file).size); seen.push(read); } });
    for await (const _ of events) { /* read through */ }
    expect(events.stats.events).toBe(30_000);
    expect(seen.length).toBeGreaterThan(10);
    expect(seen).toEqual([...seen].sort((a, b) => a - b));
    expect(seen.at(-1)).toBe(statSync(file).size);
  });

  it('says nothing for a short log, a line per quarter for a long one, then that it renders', () => {
    const out: string[] = [];
    const quiet = reportProgress((s) => out.push(s), false);
    quiet.onProgress({ phase: 'read', file: 'a', bytesRead: 1_000, totalBytes: 2_000_000 });
    quiet.onProgress({ phase: 'render' });
    expect(out).toEqual([]);
    const p = reportProgress((s) => out.push(s), false);
    const total = 40 * 1024 * 1024;
    for (let i = 1; i < 20; i++) p.onProgress({ phase: 'read', file: 'a', bytesRead: (i * total) / 20, totalBytes: total });
    p.onProgress({ phase: 'render' });
    expect(out).toEqual([
      'report: reading the event log: 25 % (10.0 of 40.0 MB)\n',
      'report: reading the event log: 50 % (20.0 of 40.0 MB)\n',
      'report: reading the event log: 75 % (30.0 of 40.0 MB)\n',
      'report: rendering the charts\n',
    ]);
  });
});
