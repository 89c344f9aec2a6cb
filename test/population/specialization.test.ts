import { describe, expect, it } from 'vitest';
import {
  anchorOf, competenceSpread, specialistOf, specialists, specialistStreaks, StabilityTracker, stableSpecialistCount, stableSpecialists,
} from '../../src/population/specialization';
import { agent } from './lifecycle/fixtures';

describe('anchor and specialist of a niche', () => {
  it('anchors on the highest competence, unseen niches at c0', () => {
    const roster = [agent('a', { x: 0.6 }), agent('b', { x: 0.8 }), agent('c', { x: 0.4 })];
    expect(anchorOf(roster, 'x', 0.5)).toBe('b');
    expect(anchorOf([agent('a', { x: 0.45 }), agent('b')], 'x', 0.5)).toBe('b');
    expect(anchorOf([], 'x', 0.5)).toBeNull();
  });

  it('breaks anchor ties by spawn order (earliest in the roster)', () => {
    const a = agent('a', { x: 0.7 });
    const b = agent('b', { x: 0.7 });
    expect(anchorOf([a, b], 'x', 0.5)).toBe('a');
    expect(anchorOf([b, a], 'x', 0.5)).toBe('b');
  });

  it('names a specialist only when the lead reaches the margin', () => {
    expect(specialistOf([agent('a', { x: 0.71 }), agent('b', { x: 0.6 })], 'x', 0.5, 0.1, 5)).toBe('a');
    expect(specialistOf([agent('a', { x: 0.69 }), agent('b', { x: 0.6 })], 'x', 0.5, 0.1, 5)).toBeNull();
    // 0.7 − 0.6 is 0.0999… in floating point: still a lead of 0.1.
    expect(specialistOf([agent('a', { x: 0.7 }), agent('b', { x: 0.6 })], 'x', 0.5, 0.1, 5)).toBe('a');
  });

  it('needs enough exposure, a runner-up, and no tie at the top', () => {
    const lead = (e: number) => [agent('a', { x: 0.9 }, { exposure: { x: e } }), agent('b', { x: 0.5 })];
    expect(specialistOf(lead(5), 'x', 0.5, 0.1, 5)).toBe('a');
    expect(specialistOf(lead(4), 'x', 0.5, 0.1, 5)).toBeNull();
    expect(specialistOf([agent('a', { x: 0.9 })], 'x', 0.5, 0.1, 0)).toBeNull();
    expect(specialistOf([agent('a', { x: 0.9 }), agent('b', { x: 0.9 })], 'x', 0.5, 0.1, 0)).toBeNull();
  });

  it('maps every niche to its specialist or null', () => {
    const roster = [agent('a', { x: 0.9, y: 0.5 }), agent('b', { x: 0.5, y: 0.55 })];
    expect(specialists(roster, ['x', 'y', 'z'], 0.5, 0.1, 5)).toEqual({ x: 'a', y: null, z: null });
  });
});

describe('competence spread', () => {
  it('reports max, median, min, mean, std and gini', () => {
    const roster = [agent('a', { x: 0.8 }), agent('b', { x: 0.2 }), agent('c', { x: 0.6 }), agent('d', { x: 0.4 })];
    const s = competenceSpread(roster, 'x', 0.5);
    expect(s).toMatchObject({ count: 4, max: 0.8, min: 0.2 });
    expect(s.median).toBeCloseTo(0.5);
    expect(s.mean).toBeCloseTo(0.5);
    expect(s.std).toBeCloseTo(Math.sqrt(0.05));
    expect(s.gini).toBeCloseTo(0.25);
  });

  it('has zero gini for an even pool and counts unseen agents at c0', () => {
    const s = competenceSpread([agent('a'), agent('b', { x: 0.5 })], 'x', 0.5);
    expect(s).toMatchObject({ count: 2, max: 0.5, min: 0.5, std: 0, gini: 0 });
    expect(competenceSpread([], 'x', 0.5).count).toBe(0);
  });
});

describe('stable specialists', () => {
  it('is stable after holding the niche for stableWindows consecutive windows up to the latest', () => {
    expect(stableSpecialists([{ x: 'a' }, { x: 'a' }])).toEqual({ x: 'a' });
    expect(stableSpecialists([{ x: 'a' }])).toEqual({});
    expect(stableSpecialists([{ x: 'b' }, { x: 'a' }])).toEqual({});
    expect(stableSpecialists([{ x: 'a' }, { x: null }, { x: 'a' }])).toEqual({});
    expect(stableSpecialists([{ x: 'a' }, { x: 'a' }, { x: null }])).toEqual({});
    expect(stableSpecialists([{}, { x: 'a' }])).toEqual({});
  });

  it('honours a longer stability requirement and counts pairs', () => {
    const h = [{ x: 'a', y: 'b' }, { x: 'a', y: 'b' }, { x: 'a', y: 'c' }];
    expect(specialistStreaks(h)).toEqual({ x: { agentId: 'a', windows: 3 }, y: { agentId: 'c', windows: 1 } });
    expect(stableSpecialists(h, 3)).toEqual({ x: 'a' });
    expect(stableSpecialists(h, 4)).toEqual({});
    expect(stableSpecialistCount([{ x: 'a', y: 'a' }, { x: 'a', y: 'a' }])).toBe(2);
  });

  it('tracks windows without sharing the caller’s maps', () => {
    const t = new StabilityTracker(2);
    const m: Record<string, string | null> = { x: 'a', y: 'b' };
    t.record(m);
    m.y = 'c';
    t.record({ x: 'a', y: 'b' });
    expect(t.stable()).toEqual({ x: 'a', y: 'b' });
    expect(t.count()).toBe(2);
    t.record({ x: 'a', y: null });
    expect(t.stable()).toEqual({ x: 'a' });
    expect(t.history()).toHaveLength(3);
  });
});
