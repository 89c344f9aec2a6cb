/**
 * The task stream is drawn lazily: a stream of any length costs the memory of one task, so a
 * billion-task run starts at once and can be stopped at once. Shares per niche are arithmetic, and
 * a dataset niche drawn more often than it has rows gets one line saying so.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildNiches, GraderSet } from '../../src/tasks/niche-registry';
import { nicheSequence, nicheShares, repeatedRowNotices, taskStream } from '../../src/tasks/stream';
import type { NicheEntry } from '../../src/tasks/niche-entry';

const graders = new GraderSet({ codeWorkers: 1, codeTimeoutMs: 3000 });
afterAll(() => graders.close());
const builtin = (id: string, weight = 1) => ({ id, weight }) as NicheEntry;
const entries = [builtin('arithmetic', 2), builtin('algebra'), builtin('people-qa')];

describe('task stream: drawn lazily', () => {
  it('yields the first tasks of a stream of 10^12 at once, as the same tasks a short stream starts with', () => {
    const niches = buildNiches(entries, '.', graders);
    for (const order of ['blocks', 'interleaved', 'shuffled'] as const) {
      const huge = taskStream({ order, tasks: 1e12, blockSize: 3, entries, niches, seed: 5 });
      const first = Array.from({ length: 7 }, () => huge.next().value!);
      const short = [...taskStream({ order, tasks: 7, blockSize: 3, entries, niches, seed: 5 })];
      expect(first.map((t) => [t.id, t.question])).toEqual(short.map((t) => [t.id, t.question]));
    }
  });

  it('counts each niche\'s share without walking the stream, as a walk counts it', () => {
    for (const order of ['blocks', 'interleaved'] as const) {
      for (const [tasks, blockSize] of [[10, 3], [7, undefined], [100, 7], [2, 5]] as const) {
        const walked = new Map<string, number>(entries.map((e) => [e.id, 0]));
        for (const { niche } of nicheSequence({ order, tasks, ...(blockSize ? { blockSize } : {}), entries, niches: new Map(), seed: 1 })) walked.set(niche, walked.get(niche)! + 1);
        expect(nicheShares({ order, tasks, ...(blockSize ? { blockSize } : {}), entries })).toEqual(walked);
      }
    }
    expect(nicheShares({ order: 'shuffled', tasks: 1e9, entries })).toEqual(new Map([['arithmetic', 5e8], ['algebra', 2.5e8], ['people-qa', 2.5e8]]));
  });

  it('says in one line when a dataset niche has fewer rows than the stream draws from it', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'evo-stream-'));
    writeFileSync(path.join(dir, 'gsm8k.jsonl'), `${Array.from({ length: 5 }, (_, i) => JSON.stringify({ question: `Q${i}`, answer: `#### ${i}` })).join('\n')}\n`);
    const ds = [{ id: 'gsm', weight: 1, dataset: { format: 'gsm8k', path: 'gsm8k.jsonl' } } as NicheEntry, builtin('arithmetic')];
    const niches = buildNiches(ds, dir, graders);
    expect(repeatedRowNotices({ order: 'interleaved', tasks: 10, entries: ds, niches })).toEqual([]);
    expect(repeatedRowNotices({ order: 'interleaved', tasks: 1e9, entries: ds, niches })).toEqual([
      'note: niche "gsm" has 5 rows but the stream draws 500000000 tasks from it, so each row repeats up to 100000000 times (fewer --tasks, or a larger dataset, avoids it)',
    ]);
  });
});
