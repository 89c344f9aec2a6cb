import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createRng } from '../../src/index';
import { buildNiches, GraderSet } from '../../src/tasks/niche-registry';
import { taskStream } from '../../src/tasks/stream';
import type { NicheEntry } from '../../src/tasks/niche-entry';

const dir = mkdtempSync(path.join(tmpdir(), 'evo-niche-registry-'));
const graders = new GraderSet({ codeWorkers: 1, codeTimeoutMs: 3000 });
afterAll(() => graders.close());

/** MATH rows whose levels jump around (file order is not level order), with malformed lines among them. */
const mathRows = Array.from({ length: 3000 }, (_, i) => ({ problem: `Problem ${i}`, answer: String(i), level: `Level ${((i * 7) % 5) + 1}` }));
const mathLines = mathRows.map((r, i) => (i % 500 === 250 ? `{broken ${i}\n${JSON.stringify(r)}` : JSON.stringify(r)));
writeFileSync(path.join(dir, 'math.jsonl'), `${mathLines.join('\n')}\n`);
const gsmRows = Array.from({ length: 2000 }, (_, i) => ({ question: `Question ${i}`, answer: `work\n#### ${i}` }));
writeFileSync(path.join(dir, 'gsm8k.jsonl'), `${gsmRows.map((r) => JSON.stringify(r)).join('\n')}\n`);

const entry = (id: string, format: 'math' | 'gsm8k', extra: Partial<NicheEntry> = {}): NicheEntry =>
  ({ id, weight: 1, dataset: { format, path: `${format}.jsonl` }, ...extra }) as NicheEntry;

describe('dataset niches keep every row, in file order', () => {
  it('each level walks its rows in file order and wraps around', () => {
    const niche = buildNiches([entry('math', 'math')], dir, graders).get('math')!;
    expect(niche.spec.difficulties).toEqual([1, 2, 3, 4, 5]);
    expect(niche.skippedRows).toBe(6);
    const rng = createRng(1);
    for (const level of [3, 1, 5, 2, 4]) {
      const expected = mathRows.filter((r) => r.level === `Level ${level}`).map((r) => r.problem);
      const drawn = Array.from({ length: expected.length * 2 + 1 }, () => niche.next(level, rng).question);
      expect(drawn).toEqual([...expected, ...expected, expected[0]]);
    }
  });

  it('a filter keeps the remaining rows in file order', () => {
    const niche = buildNiches([{ ...entry('hard', 'math'), dataset: { format: 'math', path: 'math.jsonl', filter: { levels: [4, 5] } } } as NicheEntry], dir, graders).get('hard')!;
    expect(niche.spec.difficulties).toEqual([4, 5]);
    const rng = createRng(1);
    const level5 = mathRows.filter((r) => r.level === 'Level 5').map((r) => r.answer);
    expect(Array.from({ length: level5.length }, () => niche.next(5, rng).hidden.answer)).toEqual(level5);
  });

  it('a stream over a one-level dataset yields the rows in file order', () => {
    const niches = buildNiches([entry('gsm', 'gsm8k')], dir, graders);
    const tasks = [...taskStream({ order: 'interleaved', tasks: gsmRows.length + 3, entries: [entry('gsm', 'gsm8k')], niches, seed: 4 })];
    expect(tasks.map((t) => t.question)).toEqual([...gsmRows, ...gsmRows.slice(0, 3)].map((r) => r.question));
    expect(tasks.map((t) => t.hidden.answer)).toEqual([...gsmRows, ...gsmRows.slice(0, 3)].map((r) => r.answer.split('#### ')[1]));
  });
});
