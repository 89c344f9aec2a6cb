import { describe, expect, it } from 'vitest';
import { genesis, rankGeneralists } from '../../../src/population/lifecycle/genesis';
import { agent, ctxOf } from './fixtures';

// Niche y has no specialist (0.55 vs 0.5); niche x has one (a leads by 0.3).
const roster = () => [
  agent('a', { x: 0.9, y: 0.55 }),
  agent('b', { x: 0.6, y: 0.5 }),
  agent('c', { x: 0.6, y: 0.5 }),
  agent('d', { x: 0.5, y: 0.5 }),
];

describe('genesis', () => {
  it('fires for a niche that recurs enough and has no specialist', () => {
    const out = genesis(ctxOf(roster(), { recentNiches: { x: 30, y: 10 } }));
    expect(out).toHaveLength(1);
    expect(out[0]).toMatchObject({ operator: 'genesis', niche: 'y' });
    expect(out[0]!.reason).toContain('recurred 10 times');
    expect(out[0]!.reason).toContain('(≥ 10)');
  });

  it('waits until a niche has lacked a specialist for stableWindows consecutive windows', () => {
    expect(genesis(ctxOf(roster(), { recentNiches: { y: 10 }, unspecializedFor: { x: 0, y: 1 } }))).toEqual([]);
    const out = genesis(ctxOf(roster(), { recentNiches: { y: 10 }, unspecializedFor: { x: 0, y: 2 } }));
    expect(out).toHaveLength(1);
    expect(out[0]!.reason).toContain('for 2 windows (≥ 2)');
  });

  it('does not fire just below the recurrence threshold', () => {
    expect(genesis(ctxOf(roster(), { recentNiches: { x: 30, y: 9 } }))).toEqual([]);
  });

  it('does not fire for a niche that has a specialist', () => {
    const r = roster();
    r[0] = agent('a', { x: 0.9, y: 0.61 });
    expect(genesis(ctxOf(r, { recentNiches: { y: 10 } }))).toEqual([]);
    r[0] = agent('a', { x: 0.9, y: 0.59 });
    expect(genesis(ctxOf(r, { recentNiches: { y: 10 } }))).toHaveLength(1);
  });

  it('spawns from the most generalist parent: high mean, low spread', () => {
    // a: mean 0.725, std 0.175 → score 0.55; b: mean 0.625, std 0.025 → score 0.6.
    const r = [agent('a', { x: 0.9, y: 0.55 }), agent('b', { x: 0.65, y: 0.6 }), agent('c', { x: 0.5, y: 0.5 })];
    expect(genesis(ctxOf(r, { niches: ['x', 'y', 'z'], recentNiches: { z: 12 } }))[0]).toMatchObject({ parent: 'b', niche: 'z' });
    // Without a spread penalty the highest mean wins.
    const noPenalty = ctxOf(r, { niches: ['x', 'y', 'z'], recentNiches: { z: 12 }, config: { genesis: { spreadPenalty: 0 } } });
    expect(genesis(noPenalty)[0]).toMatchObject({ parent: 'a' });
  });

  it('ranks generalist ties by spawn order', () => {
    const r = [agent('p', { x: 0.6 }), agent('q', { x: 0.6 })];
    expect(rankGeneralists(r, ['x'], 0.5, 1).map((g) => g.agentId)).toEqual(['p', 'q']);
    expect(rankGeneralists(r.reverse(), ['x'], 0.5, 1).map((g) => g.agentId)).toEqual(['q', 'p']);
  });

  it('takes the most recurrent gap, one per window by default, with distinct parents when allowed more', () => {
    const r = [agent('a', { x: 0.5 }), agent('b', { x: 0.5 }), agent('c', { x: 0.5 }), agent('d', { x: 0.5 })];
    const ctx = { niches: ['x', 'y', 'z'], recentNiches: { x: 10, y: 20, z: 15 } };
    expect(genesis(ctxOf(r, ctx)).map((d) => d.operator === 'genesis' && d.niche)).toEqual(['y']);
    const two = genesis(ctxOf(r, { ...ctx, config: { genesis: { maxPerWindow: 2 } } }));
    expect(two.map((d) => d.operator === 'genesis' && [d.niche, d.parent])).toEqual([['y', 'a'], ['z', 'b']]);
  });

  it('never proposes growth past maxAgents', () => {
    const ctx = (max: number) => ctxOf(roster(), { recentNiches: { y: 40 }, bounds: { maxAgents: max } });
    expect(genesis(ctx(4))).toEqual([]);
    expect(genesis(ctx(5))).toHaveLength(1);
  });

  it('can be switched off by its own maxPerWindow', () => {
    expect(genesis(ctxOf(roster(), { recentNiches: { y: 40 }, config: { genesis: { maxPerWindow: 0 } } }))).toEqual([]);
  });
});
