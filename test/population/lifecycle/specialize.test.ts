import { describe, expect, it } from 'vitest';
import { dominantNiche, personaNames, specialize } from '../../../src/population/lifecycle/specialize';
import { agent, ctxOf } from './fixtures';

// Defaults: minCompetence 0.7, margin 0.15, minExposure 5.
const strong = (c: number, second: number, opts: Parameters<typeof agent>[2] = {}) =>
  agent('s', { algebra: c, 'list-functions': second, arithmetic: 0.5 }, opts);

describe('specialize', () => {
  it('nudges a strong agent toward its dominant niche', () => {
    const out = specialize(ctxOf([strong(0.72, 0.56), agent('o', { algebra: 0.5 })]));
    expect(out).toEqual([{ operator: 'specialize', agent: 's', niche: 'algebra', reason: expect.stringContaining('leads its next niche (0.56) by 0.16 (≥ 0.15)') }]);
  });

  it('does not fire just below the competence floor or the margin', () => {
    expect(specialize(ctxOf([strong(0.69, 0.5)]))).toEqual([]);
    expect(specialize(ctxOf([strong(0.72, 0.58)]))).toEqual([]);
  });

  it('does not fire with too little exposure on the niche', () => {
    expect(specialize(ctxOf([strong(0.9, 0.5, { exposure: { algebra: 4 } })]))).toEqual([]);
    expect(specialize(ctxOf([strong(0.9, 0.5, { exposure: { algebra: 5 } })]))).toHaveLength(1);
  });

  it('does not fire when the persona already names the niche', () => {
    expect(specialize(ctxOf([strong(0.9, 0.5, { persona: 'You are an Algebra expert.' })]))).toEqual([]);
    const lf = agent('s', { 'list-functions': 0.9, algebra: 0.5 }, { persona: 'You write list functions.' });
    expect(specialize(ctxOf([lf]))).toEqual([]);
  });

  it('ranks by margin and stops at maxPerWindow', () => {
    const r = [agent('a', { x: 0.8, y: 0.6 }), agent('b', { x: 0.5, y: 0.9 }), agent('c', { x: 0.85, y: 0.6 })];
    expect(specialize(ctxOf(r)).map((d) => d.operator === 'specialize' && [d.agent, d.niche])).toEqual([['b', 'y'], ['c', 'x']]);
    expect(specialize(ctxOf(r, { config: { specialize: { maxPerWindow: 1 } } }))).toHaveLength(1);
  });

  it('finds an agent’s dominant niche and reads niche ids in personas', () => {
    expect(dominantNiche(agent('a', { x: 0.6, y: 0.9 }), ['x', 'y', 'z'], 0.5)).toMatchObject({ niche: 'y', secondBest: 0.6 });
    expect(dominantNiche(agent('a'), ['x', 'y'], 0.5)).toMatchObject({ niche: 'x', margin: 0 });
    expect(personaNames('People QA specialist', 'people-qa')).toBe(true);
    expect(personaNames('A careful solver', 'people-qa')).toBe(false);
    // Whole words only: the "y" in "You" does not name niche y.
    expect(personaNames('You are a careful problem solver.', 'y')).toBe(false);
    expect(personaNames('Focus on niche y, then x.', 'y')).toBe(true);
  });
});
