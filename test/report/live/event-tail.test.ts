import { appendFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { EventTail, type TailedEvent } from '../../../src/report/live/event-tail';

const line = (seq: number, extra = '') => `${JSON.stringify({ id: `e${seq}`, seq, type: 'task.done', taskId: `t${seq}`, status: 'graded', reward: 1, poolVersion: seq, startedAt: seq, pad: extra })}\n`;

function tailOf(file: string) {
  const got: TailedEvent[] = [];
  const tail = new EventTail(file, { pollMs: 60_000 });
  tail.start((batch) => got.push(...batch));
  return { tail, got };
}

describe('EventTail: events.jsonl followed by byte offset', () => {
  it('waits on a torn last line and never parses it half; delivers it once it is whole', () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'evo-tail-')), 'events.jsonl');
    const whole = line(1);
    writeFileSync(file, line(0) + whole.slice(0, 20));
    const { tail, got } = tailOf(file);
    expect(got.map((e) => e.seq)).toEqual([0]);
    tail.check();
    expect(got.map((e) => e.seq)).toEqual([0]);
    expect(tail.stats.skippedCount).toBe(0);
    appendFileSync(file, whole.slice(20) + line(2));
    tail.check();
    expect(got.map((e) => e.seq)).toEqual([0, 1, 2]);
    expect(got[1]!.line).toBe(whole.trimEnd());
    tail.stop();
  });

  it('follows a file truncated back to its last whole line and rewritten (a resumed run), with no duplicate', () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'evo-tail-')), 'events.jsonl');
    writeFileSync(file, line(0) + line(1) + line(2).slice(0, 30));
    const { tail, got } = tailOf(file);
    // The resumed run drops the cut group and writes it again, then goes on.
    writeFileSync(file, line(0) + line(1) + line(2) + line(3));
    tail.check();
    expect(got.map((e) => e.seq)).toEqual([0, 1, 2, 3]);
    tail.stop();
  });

  it('since(seq) re-reads exactly the events after seq, across checkpoints and slices of a large log', () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'evo-tail-')), 'events.jsonl');
    const n = 3000;
    // ~6 MB: more than one read slice.
    writeFileSync(file, Array.from({ length: n }, (_, i) => line(i, 'x'.repeat(2000))).join(''));
    const { tail, got } = tailOf(file);
    expect(got.length).toBe(n);
    expect(got.every((e, i) => e.seq === i)).toBe(true);
    for (const after of [-1, 0, 254, 255, 256, 257, 1000, 2998, 2999]) {
      const missed = tail.since(after).map((e) => e.seq);
      expect(missed).toEqual(Array.from({ length: n - 1 - after }, (_, i) => after + 1 + i));
    }
    tail.stop();
  });

  it('counts a garbled whole line and goes on', () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'evo-tail-')), 'events.jsonl');
    writeFileSync(file, `${line(0)}{"not json\n${line(1)}`);
    const { tail, got } = tailOf(file);
    expect(got.map((e) => e.seq)).toEqual([0, 1]);
    expect(tail.stats).toEqual({ lines: 3, events: 2, skippedCount: 1, unknown: 0 });
    tail.stop();
  });
});
