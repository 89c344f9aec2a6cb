import { describe, expect, it } from 'vitest';
import { aimedAt, personaNames, poolLead, specialize } from '../../../src/population/lifecycle/specialize';
import { agent, ctxOf } from './fixtures';

// Defaults: minCompetence 0.5, margin 0.05 (lead over the best other agent), minExposure 5.

describe('specialize', () => {
  it('aims an agent at the niche where it leads the pool most, not at its own easiest niche', () => {
    // s is strongest on people-qa, but so is everyone; it leads the pool only on algebra.
    const roster = [
      agent('s', { 'people-qa': 0.9, algebra: 0.62 }),
      agent('o', { 'people-qa': 0.88, algebra: 0.5 }),
      agent('p', { 'people-qa': 0.85, algebra: 0.45 }),
    ];
    const out = specialize(ctxOf(roster));
    expect(out).toEqual([{
      operator: 'specialize', agent: 's', niche: 'algebra',
      reason: expect.stringContaining('competence 0.62 against the best other agent\'s 0.5, a lead of 0.12 (≥ 0.05)'),
    }]);
  });

  it('does not fire just below the lead, the competence floor, or the exposure', () => {
    const pair = (c: number, other: number, opts: Parameters<typeof agent>[2] = {}) => [agent('s', { algebra: c, x: 0.5 }, opts), agent('o', { algebra: other, x: 0.5 })];
    expect(specialize(ctxOf(pair(0.64, 0.6)))).toEqual([]);
    expect(specialize(ctxOf(pair(0.65, 0.6)))).toHaveLength(1);
    expect(specialize(ctxOf(pair(0.49, 0.3)))).toEqual([]);
    expect(specialize(ctxOf(pair(0.9, 0.5, { exposure: { algebra: 4 } })))).toEqual([]);
    expect(specialize(ctxOf(pair(0.9, 0.5, { exposure: { algebra: 5 } })))).toHaveLength(1);
  });

  it('keeps an aim: an agent whose persona aims at a niche is not re-aimed, and an aimed niche is not offered again', () => {
    const others = [agent('o', { algebra: 0.5, 'list-functions': 0.5 }), agent('p', { algebra: 0.5, 'list-functions': 0.5 })];
    expect(specialize(ctxOf([agent('s', { algebra: 0.9, 'list-functions': 0.5 }, { persona: 'You are an Algebra expert.' }), ...others]))).toEqual([]);
    // Aimed at list functions, though it now leads algebra by more.
    expect(specialize(ctxOf([agent('s', { 'list-functions': 0.5, algebra: 0.9 }, { persona: 'You write list functions.' }), ...others]))).toEqual([]);
    // Algebra already has its aimed agent (o): s, leading there, is aimed at the niche it leads most among the others.
    const r = [agent('s', { algebra: 0.9, 'list-functions': 0.6 }), agent('o', { algebra: 0.5, 'list-functions': 0.5 }, { persona: 'You solve algebra.' }), others[1]!];
    expect(specialize(ctxOf(r)).map((d) => [d.agent, d.niche])).toEqual([['s', 'list-functions']]);
  });

  it('reads an aim from the niche id, its title or two of its keywords, never from one keyword', () => {
    const terms = ['Arithmetic word problems', 'arithmetic', 'word problem', 'percentage', 'step-by-step'];
    expect(aimedAt('You are a careful problem solver. You work step by step.', 'arithmetic', terms)).toBe(false);
    expect(aimedAt('You specialise in arithmetic word problems.', 'arithmetic', terms)).toBe(true);
    expect(aimedAt('You love each word problem and every percentage.', 'arithmetic', terms)).toBe(true);
  });

  it('needs a pool: one agent leads nobody', () => {
    expect(specialize(ctxOf([agent('s', { algebra: 0.9, x: 0.5 })]))).toEqual([]);
  });

  it('ranks by lead and stops at maxPerWindow; each niche has at most one candidate', () => {
    const r = [agent('a', { x: 0.8, y: 0.6 }), agent('b', { x: 0.5, y: 0.9 }), agent('c', { x: 0.7, y: 0.6 })];
    expect(specialize(ctxOf(r)).map((d) => [d.agent, d.niche])).toEqual([['b', 'y'], ['a', 'x']]);
    expect(specialize(ctxOf(r, { config: { specialize: { maxPerWindow: 1 } } }))).toHaveLength(1);
  });

  it('measures the lead over the best other agent, unseen niches at c0, and reads niche ids in personas', () => {
    const r = [agent('a', { x: 0.6, y: 0.9 }), agent('b', { x: 0.7, y: 0.5 }), agent('c', { y: 0.8 })];
    expect(poolLead(r[0]!, r, ['x', 'y', 'z'], 0.5)).toMatchObject({ niche: 'y', competence: 0.9, bestOther: 0.8 });
    expect(poolLead(r[1]!, r, ['x', 'y'], 0.5)!.lead).toBeCloseTo(0.1, 9);
    expect(poolLead(r[2]!, r, ['z'], 0.5)).toMatchObject({ niche: 'z', lead: 0 });
    expect(personaNames('People QA specialist', 'people-qa')).toBe(true);
    expect(personaNames('A careful solver', 'people-qa')).toBe(false);
    // Whole words only: the "y" in "You" does not name niche y.
    expect(personaNames('You are a careful problem solver.', 'y')).toBe(false);
    expect(personaNames('Focus on niche y, then x.', 'y')).toBe(true);
  });
});
