import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createHashEmbedder } from '../../src/llm/hash-embedder';
import { Archive, type ArchiveEntry } from '../../src/individual/archive';
import { RewardHistory } from '../../src/individual/reward-history';
import { LeadershipBank, leadershipKey, type LeadershipEntry } from '../../src/team/leadlearn/leadership-bank';
import { loadScenario, parseScenario } from '../../src/index';

// The bounds of a run's state (src/population/state-bounds.ts): each structure keeps what its
// readers need, however long the stream.

describe('reward history: running aggregates plus a bounded window', () => {
  it('counts and sums every observation and holds at least its window, the latest last', () => {
    let h = RewardHistory.empty(4);
    for (let i = 0; i < 50; i++) h = h.with({ niche: 'n', reward: i % 2, poolVersion: i + 1 });
    expect(h.length).toBe(50);
    expect(h.rewardSum).toBe(25);
    expect(h.heldCount).toBeGreaterThanOrEqual(4);
    expect(h.heldCount).toBeLessThanOrEqual(8);
    expect(h.slice(-4).map((e) => e.poolVersion)).toEqual([47, 48, 49, 50]);
  });

  it('leaves an old version as it was when a newer one cuts its buffer back', () => {
    let h = RewardHistory.empty(2);
    const versions: RewardHistory[] = [];
    for (let i = 0; i < 9; i++) { h = h.with({ niche: 'n', reward: 1, poolVersion: i + 1 }); versions.push(h); }
    expect(versions[2]!.toArray().map((e) => e.poolVersion)).toEqual([1, 2, 3]);
    expect(versions[8]!.at(-1)!.poolVersion).toBe(9);
  });
});

const DIM = 64;
const embedder = createHashEmbedder({ dim: DIM });
let seq = 0;
const lesson = (text: string, niche: string | null = 'algebra'): ArchiveEntry => ({
  id: `e${seq++}`, text, niche, level: niche === null ? 'meta' : 'lesson', source: 'reflection', taskId: null, poolVersion: 0, key: embedder.embedSync(text),
});

describe('archive buckets: a capacity and an eviction rule', () => {
  it('evicts the oldest quarter of a bucket that passes its capacity, and only that bucket', () => {
    const a = new Archive({ dim: DIM, bucketCapacity: 8 });
    a.add(lesson('a meta insight', null));
    for (let i = 0; i < 9; i++) a.add(lesson(`lesson number ${i}`));
    // The ninth lesson passed 8: the two oldest (a quarter of 9, rounded down) went.
    expect(a.sizeByNiche()).toEqual({ algebra: 7 });
    expect(a.metaSize()).toBe(1);
    expect(a.has('lesson number 0', 'algebra')).toBe(false);
    expect(a.has('lesson number 2', 'algebra')).toBe(true);
    const got = a.retrieve(embedder.embedSync('lesson number 0'), 'algebra', 20, 0);
    expect(got.lessons.map((e) => e.text)).not.toContain('lesson number 0');
    // An evicted lesson may be learnt again.
    expect(a.add(lesson('lesson number 0'))).toBe(true);
  });

  it('keeps versions persistent across an eviction', () => {
    let a = new Archive({ dim: DIM, bucketCapacity: 4 });
    for (let i = 0; i < 4; i++) a = a.with(lesson(`old ${i}`));
    const before = a;
    a = a.with(lesson('new one'));
    expect(before.size()).toBe(4);
    expect(before.has('old 0', 'algebra')).toBe(true);
    expect(a.has('old 0', 'algebra')).toBe(false);
    expect(a.clone().bucketCapacity).toBe(4);
  });

  it('never grows a bucket past its capacity over a long stream', () => {
    let a = new Archive({ dim: DIM, bucketCapacity: 16 });
    for (let i = 0; i < 500; i++) a = a.with(lesson(`streamed lesson ${i}`));
    expect(a.sizeByNiche().algebra).toBeLessThanOrEqual(16);
    expect(a.size()).toBeLessThanOrEqual(16);
  });
});

describe('leadership bank: a bounded candidate set per niche', () => {
  const ekey = (niche: string, p: number) => leadershipKey(embedder.embedSync(niche), [p, p, p]);
  let n = 0;
  const record = (niche: string, p: number, v: number): LeadershipEntry => ({
    id: `r${n++}`, taskId: `t${n}`, niche, difficulty: 1, teamProfile: [p, p, p], structure: 'voting', outcome: p, note: '', poolVersion: v, key: ekey(niche, p), committedAt: v,
  });

  it('answers as an unbounded bank does while every niche is within its window', () => {
    const small = new LeadershipBank(DIM, undefined, Infinity, 50);
    const whole = new LeadershipBank(DIM);
    for (let i = 0; i < 60; i++) {
      const r = record(['algebra', 'people-qa', 'list-functions'][i % 3]!, (i * 37 % 100) / 100, i + 1);
      small.add(r);
      whole.add(r);
    }
    for (const niche of ['algebra', 'people-qa']) {
      for (const p of [0.1, 0.5, 0.93]) {
        expect(small.query(ekey(niche, p), 12).map((e) => e.id)).toEqual(whole.query(ekey(niche, p), 12).map((e) => e.id));
        expect(small.query(ekey(niche, p), 5, 30).map((e) => e.id)).toEqual(whole.query(ekey(niche, p), 5, 30).map((e) => e.id));
      }
    }
  });

  it('holds at most its window per niche, counts every record, and forgets the dropped ones', () => {
    const bank = new LeadershipBank(DIM, undefined, Infinity, 8);
    for (let i = 0; i < 100; i++) bank.add(record('algebra', (i % 10) / 10, i + 1));
    bank.add(record('people-qa', 0.5, 101));
    expect(bank.size).toBe(101);
    expect(bank.at(40).size).toBe(40);
    expect(bank.entries().length).toBeLessThanOrEqual(9);
    expect(bank.has('r0')).toBe(false);
    expect(bank.query(ekey('algebra', 0.5), 50).every((e) => e.committedAt! > 90)).toBe(true);
    // The statistics keep every record: 100 on algebra.
    expect(bank.stats.forNiche('algebra', ['voting'])[0]!.count).toBe(100);
  });
});

describe('scenario bounds', () => {
  it('default to values no shipped scenario reaches, and refuse a history shorter than the prune window', () => {
    const s = loadScenario(path.resolve('scenarios/quickstart.json'));
    expect(s.scenario.bounds).toEqual({ historyWindow: 1024, bucketCapacity: 2048, leadlearnWindow: 1024 });
    const raw = { name: 'x', stream: { tasks: 1, niches: [{ id: 'arithmetic' }] }, bounds: { historyWindow: 10 } };
    expect(() => parseScenario(raw, 'x.json', '.')).toThrow(/bounds\.historyWindow.*prune\.window \(20\)/);
  });
});
