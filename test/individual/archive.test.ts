import { describe, expect, it } from 'vitest';
import { Archive, type ArchiveEntry, type ArchiveLevel } from '../../src/individual/archive';
import { cosine } from '../../src/core/vector';
import { createHashEmbedder } from '../../src/llm/hash-embedder';

const DIM = 128;
const embedder = createHashEmbedder({ dim: DIM });
let seq = 0;

function entry(text: string, niche: string | null, extra: Partial<ArchiveEntry> = {}): ArchiveEntry {
  const level: ArchiveLevel = niche === null ? 'meta' : 'lesson';
  return { id: `e${seq++}`, text, niche, level, source: 'reflection', taskId: null, poolVersion: 0, key: embedder.embedSync(text), ...extra };
}

const q = (text: string): Float32Array => embedder.embedSync(text);
const texts = (es: ArchiveEntry[]): string[] => es.map((e) => e.text);

function sample(): Archive {
  const a = new Archive({ dim: DIM });
  a.add(entry('convert all units to SI before adding quantities', 'physics'));
  a.add(entry('draw a free body diagram listing every force', 'physics'));
  a.add(entry('check the sign of acceleration when the object slows down', 'physics'));
  a.add(entry('convert units of currency before adding prices', 'finance'));
  a.add(entry('reread the question to confirm which quantity is asked', null));
  a.add(entry('estimate the magnitude first then compare the final answer', null));
  return a;
}

describe('Archive', () => {
  it('retrieves the nearest lessons from the requested niche only', () => {
    const a = sample();
    const r = a.retrieve(q('convert the units before adding'), 'physics', 2, 0);
    expect(r.lessons.map((e) => e.niche)).toEqual(['physics', 'physics']);
    expect(r.lessons[0]?.text).toBe('convert all units to SI before adding quantities');
    expect(texts(r.lessons)).not.toContain('convert units of currency before adding prices');
    expect(r.meta).toEqual([]);
  });

  it('draws meta-insights from the meta pool only, most similar first', () => {
    const a = sample();
    const r = a.retrieve(q('estimate the magnitude of the answer'), 'physics', 0, 5);
    expect(r.lessons).toEqual([]);
    expect(texts(r.meta)).toEqual([
      'estimate the magnitude first then compare the final answer',
      'reread the question to confirm which quantity is asked',
    ]);
    expect(r.meta.every((e) => e.niche === null)).toBe(true);
  });

  it('returns the whole bucket when k exceeds it, and nothing for an unknown niche or k = 0', () => {
    const a = sample();
    expect(a.retrieve(q('forces'), 'physics', 50, 0).lessons).toHaveLength(3);
    expect(a.retrieve(q('forces'), 'chemistry', 5, 0).lessons).toEqual([]);
    expect(a.retrieve(q('forces'), 'physics', 0, 0).lessons).toEqual([]);
    expect(new Archive({ dim: DIM }).retrieve(q('x'), 'physics', 3, 3)).toEqual({ lessons: [], meta: [] });
  });

  it('orders results by similarity, breaking ties by insertion order', () => {
    const a = new Archive({ dim: DIM });
    // Same words, different punctuation: distinct texts with identical keys.
    a.add(entry('Check units.', 'n'));
    a.add(entry('unrelated poetry about the sea', 'n'));
    a.add(entry('check units!', 'n'));
    a.add(entry('check units?', 'n'));
    const r = a.retrieve(q('check units'), 'n', 3, 0);
    expect(texts(r.lessons)).toEqual(['Check units.', 'check units!', 'check units?']);
    // A zero query is equidistant from everything: oldest first.
    expect(texts(a.retrieve(q(''), 'n', 2, 0).lessons)).toEqual(['Check units.', 'unrelated poetry about the sea']);
  });

  it('de-duplicates by normalized text within a bucket but not across buckets', () => {
    const a = new Archive({ dim: DIM });
    expect(a.add(entry('Check the units', 'physics'))).toBe(true);
    expect(a.add(entry('  check   THE units ', 'physics'))).toBe(false);
    expect(a.add(entry('check the units', 'finance'))).toBe(true);
    expect(a.add(entry('check the units', null))).toBe(true);
    expect(a.size()).toBe(3);
    expect(a.sizeByNiche()).toEqual({ physics: 1, finance: 1 });
    expect(a.metaSize()).toBe(1);
    expect(a.has('CHECK the units', 'physics')).toBe(true);
    expect(a.has('check the units', 'chemistry')).toBe(false);
  });

  it('lists entries in insertion order across buckets', () => {
    const a = sample();
    expect(a.entries().map((e) => e.niche)).toEqual(['physics', 'physics', 'physics', 'finance', null, null]);
  });

  it('grows past its initial capacity and still finds each entry', () => {
    const a = new Archive({ dim: DIM, initialCapacity: 4 });
    const n = 1000;
    const all: ArchiveEntry[] = [];
    for (let i = 0; i < n; i++) {
      const e = entry(`lesson ${i}: topic${i % 37} detail${i} step${i % 11}`, i % 2 === 0 ? 'even' : 'odd');
      all.push(e);
      expect(a.add(e)).toBe(true);
    }
    expect(a.size()).toBe(n);
    expect(a.sizeByNiche()).toEqual({ even: 500, odd: 500 });
    for (let i = 0; i < n; i += 7) {
      const target = all[i] as ArchiveEntry;
      const { lessons } = a.retrieve(target.key, target.niche as string, 3, 0);
      expect(lessons[0]?.text).toBe(target.text);
      expect(lessons.every((e) => e.niche === target.niche)).toBe(true);
    }
    // Against brute force on one query: the top 10 match exactly.
    const query = q('topic5 step3 detail');
    const exact = a.entries()
      .filter((e) => e.niche === 'odd')
      .map((e, i) => ({ e, i, s: cosine(query, e.key) }))
      .sort((x, y) => y.s - x.s || x.i - y.i)
      .slice(0, 10)
      .map((x) => x.e.text);
    expect(texts(a.retrieve(query, 'odd', 10, 0).lessons)).toEqual(exact);
  });

  it('is deterministic for the same insertion order', () => {
    const build = (): Archive => {
      const a = new Archive({ dim: DIM, initialCapacity: 8 });
      for (let i = 0; i < 300; i++) a.add(entry(`tip ${i % 17} about case ${i}`, 'n'));
      return a;
    };
    const query = q('tip 3 about case');
    expect(texts(build().retrieve(query, 'n', 15, 0).lessons)).toEqual(texts(build().retrieve(query, 'n', 15, 0).lessons));
  });

  it('keeps every lesson exactly once after mergeFrom', () => {
    const a = sample();
    const b = new Archive({ dim: DIM });
    b.add(entry('Convert all units to SI before adding quantities', 'physics')); // duplicate of a's
    b.add(entry('use dimensional analysis to check a formula', 'physics'));
    b.add(entry('reread the question to confirm which quantity is asked', null)); // duplicate
    b.add(entry('discount future cash flows', 'finance'));
    const added = a.mergeFrom(b);
    expect(added).toBe(2);
    const keys = a.entries().map((e) => `${e.niche}|${e.text.toLowerCase()}`);
    expect(new Set(keys).size).toBe(keys.length);
    expect(a.size()).toBe(8);
    expect(a.has('use dimensional analysis to check a formula', 'physics')).toBe(true);
    expect(a.retrieve(q('dimensional analysis formula'), 'physics', 1, 0).lessons[0]?.text).toBe(
      'use dimensional analysis to check a formula',
    );
    expect(b.size()).toBe(4);
  });

  it('round-trips through toJSON/fromJSON with identical retrieval', () => {
    const a = new Archive({ dim: DIM, initialCapacity: 4 });
    for (let i = 0; i < 200; i++) a.add(entry(`lesson ${i} on area ${i % 13}`, i % 3 === 0 ? null : `n${i % 2}`, { taskId: `t${i}` }));
    const json = JSON.parse(JSON.stringify(a.toJSON()));
    const b = Archive.fromJSON(json);
    expect(b.entries().map((e) => ({ ...e, key: Array.from(e.key) }))).toEqual(a.entries().map((e) => ({ ...e, key: Array.from(e.key) })));
    for (const text of ['lesson on area 4', 'area 11', 'lesson 150']) {
      const ra = a.retrieve(q(text), 'n1', 7, 4);
      const rb = b.retrieve(q(text), 'n1', 7, 4);
      expect(texts(rb.lessons)).toEqual(texts(ra.lessons));
      expect(texts(rb.meta)).toEqual(texts(ra.meta));
      expect(ra.lessons).toHaveLength(7);
    }
  });

  it('rejects saved state with an unknown schemaVersion', () => {
    expect(() => Archive.fromJSON({ schemaVersion: 2, dim: DIM, entries: [] } as never)).toThrow(/schemaVersion/);
  });

  it('clones copy-on-write: entries are shared, and the copy and the original evolve independently', () => {
    const a = sample();
    const c = a.clone();
    c.add(entry('only in the clone', 'physics'));
    a.add(entry('only in the original', 'physics'));
    expect(a.has('only in the clone', 'physics')).toBe(false);
    expect(c.has('only in the original', 'physics')).toBe(false);
    // One stored entry (and key) for both: a fork costs its membership lists, not its content.
    expect(c.entries()[0]).toBe(a.entries()[0]);
    expect(c.size()).toBe(a.size());
    expect(texts(c.retrieve(q('free body diagram forces'), 'physics', 1, 0).lessons)).toEqual([
      'draw a free body diagram listing every force',
    ]);
  });

  it('copies the key on add, and rejects keys of the wrong length', () => {
    const a = new Archive({ dim: DIM });
    const e = entry('check the units', 'n');
    a.add(e);
    e.key.fill(0);
    expect(a.retrieve(q('check the units'), 'n', 1, 0).lessons[0]?.key.some((x) => x !== 0)).toBe(true);
    expect(() => a.add(entry('x', 'n', { key: new Float32Array(3) }))).toThrow(RangeError);
  });
});

describe('Archive: bounded buckets evict what they forgot', () => {
  const lesson = (i: number) => entry(`lesson number ${i} about step ${i * 7}`, 'algebra', { committedAt: i });
  const insight = (i: number) => entry(`insight number ${i} on checking ${i * 3}`, null, { committedAt: i });

  it('holds the newest capacity of each bucket, and its store stays under twice the capacities however many are added', () => {
    let a = new Archive({ dim: DIM, capacity: 4, metaCapacity: 3 });
    let most = 0;
    for (let i = 0; i < 200; i++) {
      a = a.with(lesson(i)).with(insight(i));
      most = Math.max(most, a.stored());
    }
    expect(most).toBeLessThanOrEqual(2 * 4 + 2 * 3);
    expect(texts(a.entries())).toEqual([196, 197, 198, 199].flatMap((i) => [lesson(i).text, ...(i >= 197 ? [insight(i).text] : [])]));
    expect(a.size()).toBe(7);
    expect(a.sizeByNiche()).toEqual({ algebra: 4 });
    expect(a.metaSize()).toBe(3);
    const r = a.retrieve(q('lesson number 3 about step 21'), 'algebra', 10, 10, Infinity);
    expect(texts(r.lessons).sort()).toEqual([196, 197, 198, 199].map((i) => lesson(i).text).sort());
    expect(r.meta).toHaveLength(3);
    // What it evicted can be learnt again, and is held again.
    expect(a.has(lesson(5).text, 'algebra')).toBe(false);
    const again = a.with(lesson(5));
    expect(again.has(lesson(5).text, 'algebra')).toBe(true);
    expect(again.sizeByNiche()).toEqual({ algebra: 4 });
  });

  it('a version taken before later versions evicted reads exactly what it read then', () => {
    let a = new Archive({ dim: DIM, capacity: 4, metaCapacity: 3 });
    for (let i = 0; i < 6; i++) a = a.with(lesson(i)).with(insight(i));
    const old = a;
    const before = { entries: texts(old.entries()), r: old.retrieve(q('lesson number 4'), 'algebra', 4, 3, 5), has: old.has(lesson(3).text, 'algebra') };
    for (let i = 6; i < 100; i++) a = a.with(lesson(i)).with(insight(i));
    expect(a.stored()).toBeLessThan(20);
    expect(texts(old.entries())).toEqual(before.entries);
    expect(old.retrieve(q('lesson number 4'), 'algebra', 4, 3, 5)).toEqual(before.r);
    expect(old.has(lesson(3).text, 'algebra')).toBe(before.has);
    // The old version grows on a store of its own, and the newest is unchanged by it.
    const branch = old.with(lesson(1000));
    expect(texts(branch.entries())).toContain(lesson(1000).text);
    expect(texts(a.entries())).not.toContain(lesson(1000).text);
  });

  it('an unbounded archive keeps every entry in its store', () => {
    let a = new Archive({ dim: DIM });
    for (let i = 0; i < 50; i++) a = a.with(lesson(i));
    expect(a.stored()).toBe(50);
    expect(a.size()).toBe(50);
  });
});
