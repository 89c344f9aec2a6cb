import { describe, expect, it } from 'vitest';
import { competenceOf, observe, type CompetenceState } from '../../src/individual/competence';

describe('EWMA competence', () => {
  const p = { eta: 0.2, c0: 0.5 };
  it('starts at c0 and moves by c ← (1−η)c + ηr', () => {
    let s: CompetenceState = { competence: {}, exposure: {} };
    expect(competenceOf(s, 'algebra', p.c0)).toBe(0.5);
    s = observe(s, 'algebra', 1, p);
    expect(s.competence.algebra).toBeCloseTo(0.6, 12);
    s = observe(s, 'algebra', 0, p);
    expect(s.competence.algebra).toBeCloseTo(0.48, 12);
    expect(s.exposure).toEqual({ algebra: 2 });
  });
  it('leaves other niches untouched', () => {
    const s = observe({ competence: { qa: 0.9 }, exposure: { qa: 3 } }, 'algebra', 1, p);
    expect(s.competence.qa).toBe(0.9);
    expect(s.exposure.qa).toBe(3);
  });
});
