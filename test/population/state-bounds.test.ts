import path from 'node:path';
import { createActor } from 'xstate';
import { describe, expect, it } from 'vitest';
import { createHashEmbedder } from '../../src/llm/hash-embedder';
import { RewardHistory } from '../../src/individual/reward-history';
import { LeadershipBank, leadershipKey, type LeadershipEntry } from '../../src/team/leadlearn/leadership-bank';
import { loadScenario, parseScenario } from '../../src/index';
import { supervisorMachine } from '../../src/population/supervisor-machine';
import { sendToSupervisor } from '../../src/population/supervisor-ops';

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
    expect(s.scenario.bounds).toEqual({ historyWindow: 1024, leadlearnWindow: 1024, archiveBucket: 256, metaPool: 256 });
    const raw = { name: 'x', stream: { tasks: 1, niches: [{ id: 'arithmetic' }] }, bounds: { historyWindow: 10 } };
    expect(() => parseScenario(raw, 'x.json', '.')).toThrow(/bounds\.historyWindow.*prune\.window \(20\)/);
  });
});

describe('archives: the pool bounds every archive it spawns', () => {
  it('an agent spawned without an archive gets one capped at bounds.archiveBucket and bounds.metaPool', () => {
    const sup = createActor(supervisorMachine, {
      input: { dim: DIM, synergyEta: 0.2, synergy0: 0.5, bounds: { historyWindow: 64, leadlearnWindow: 64, archiveBucket: 12, metaPool: 7 } },
    }).start();
    sendToSupervisor(sup, { type: 'SPAWN_AGENT', input: { id: 'a', persona: 'p', dim: DIM, eta: 0.1, c0: 0.5, origin: { kind: 'seed', parents: [], poolVersion: 0 } } });
    const archive = sup.getSnapshot().context.agents.get('a')!.getSnapshot().context.archive;
    expect([archive.capacity, archive.metaCapacity]).toEqual([12, 7]);
  });
});
