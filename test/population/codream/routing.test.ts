import { describe, expect, it } from 'vitest';
import { routeInsights } from '../../../src/population/codream/routing';
import { median } from '../../../src/population/specialization';
import type { Insight } from '../../../src/population/codream/codream';
import { agentView } from '../../fakes/agents';

const insight = (niche: string | null, level: Insight['level'] = niche ? 'subdomain' : 'cross-domain'): Insight => ({
  id: `i-${niche}`, text: 'apply the lattice-ledger pass', level, niche, authors: ['a1'],
});
const roster = [
  agentView('a1', { algebra: 0.9, 'people-qa': 0.2 }),
  agentView('a2', { algebra: 0.4, 'people-qa': 0.8 }),
  agentView('a3', { algebra: 0.6, 'people-qa': 0.5 }),
  agentView('a4', { algebra: 0.3, 'people-qa': 0.9 }),
  agentView('a5', { 'people-qa': 0.4 }), // algebra unseen: c0 = 0.5
];

describe('CoDream routing', () => {
  it('reaches exactly the agents strictly below the pool median on the insight\'s niche', () => {
    // algebra: 0.9, 0.4, 0.6, 0.3, 0.5 → median 0.5 → a2 (0.4) and a4 (0.3); a5 at the median is excluded.
    const d = routeInsights([insight('algebra')], roster, 'algebra', 0.5, 'asymmetric');
    expect(median([0.9, 0.4, 0.6, 0.3, 0.5])).toBe(0.5);
    expect(d.map((x) => x.to)).toEqual(['a2', 'a4']);
    expect(d.every((x) => x.pool === 'niche' && x.median === 0.5 && x.competence < 0.5)).toBe(true);
  });

  it('uses the insight\'s own niche, not the task\'s', () => {
    // people-qa: 0.2, 0.8, 0.5, 0.9, 0.4 → median 0.5 → a1 and a5.
    expect(routeInsights([insight('people-qa')], roster, 'algebra', 0.5, 'asymmetric').map((x) => x.to)).toEqual(['a1', 'a5']);
  });

  it('sends cross-domain insights to meta pools, routed by the task\'s niche', () => {
    const d = routeInsights([insight(null)], roster, 'algebra', 0.5, 'asymmetric');
    expect(d.map((x) => [x.to, x.pool])).toEqual([['a2', 'meta'], ['a4', 'meta']]);
  });

  it('never reaches anyone when everybody is equal (no one is below the median)', () => {
    const same = ['x', 'y', 'z'].map((id) => agentView(id, { algebra: 0.7 }));
    expect(routeInsights([insight('algebra')], same, 'algebra', 0.5, 'asymmetric')).toEqual([]);
  });

  it('symmetric routing broadcasts to every agent', () => {
    expect(routeInsights([insight('algebra')], roster, 'algebra', 0.5, 'symmetric').map((x) => x.to)).toEqual(['a1', 'a2', 'a3', 'a4', 'a5']);
  });
});
