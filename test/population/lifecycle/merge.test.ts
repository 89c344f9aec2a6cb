import { describe, expect, it } from 'vitest';
import { merge, mergeSurvivor } from '../../../src/population/lifecycle/merge';
import { agent, ctxOf, rewards } from './fixtures';

const others = () => [agent('p', { x: 0.2, y: 0.9 }, { rewards: rewards(10) }), agent('q', { x: 0.9, y: 0.2 }, { rewards: rewards(10) }), agent('r', { x: 0.1, y: 0.1 }, { rewards: rewards(10) })];
const pair = (gap: number) => [
  agent('a', { x: 0.6, y: 0.6 }, { rewards: rewards(10) }),
  agent('b', { x: 0.6 + gap, y: 0.6 }, { rewards: rewards(10) }),
  ...others(),
];

describe('merge', () => {
  it('fires for two near-identical competence profiles', () => {
    const out = merge(ctxOf(pair(0.04)));
    expect(out).toHaveLength(1);
    // Equal exposure: the higher mean competence (b) survives.
    expect(out[0]).toMatchObject({ operator: 'merge', keep: 'b', retire: 'a' });
    expect(out[0]!.reason).toContain('largest gap 0.04 (≤ 0.05)');
  });

  it('does not fire just above the competence gap', () => {
    expect(merge(ctxOf(pair(0.06)))).toEqual([]);
  });

  it('requires the style overlap too', () => {
    // cos([1, 0], [0.9, 0.3]) = 0.9487.
    const r = [agent('a', { x: 1, y: 0 }, { rewards: rewards(10) }), agent('b', { x: 0.9, y: 0.3 }, { rewards: rewards(10) }), agent('c', { x: 0, y: 1 }, { rewards: rewards(10) })];
    const at = (minOverlap: number) => merge(ctxOf(r, { bounds: { minAgents: 2, teamSize: 1 }, config: { merge: { minOverlap, maxGap: 1 } } }));
    expect(at(0.94)).toHaveLength(1);
    expect(at(0.95)).toEqual([]);
  });

  it('needs own observations from both agents', () => {
    const r = pair(0);
    r[1] = agent('b', { x: 0.6, y: 0.6 }, { rewards: rewards(9) });
    expect(merge(ctxOf(r))).toEqual([]);
  });

  it('keeps the agent with more exposure, then higher mean competence, then the earlier one', () => {
    const n = ['x', 'y'];
    const old = agent('old', { x: 0.6, y: 0.6 }, { exposure: { x: 10, y: 10 } });
    const busy = agent('busy', { x: 0.6, y: 0.6 }, { exposure: { x: 15, y: 10 } });
    expect(mergeSurvivor(old, busy, n, 0.5).keep.id).toBe('busy');
    const better = agent('better', { x: 0.61, y: 0.6 }, { exposure: { x: 10, y: 10 } });
    expect(mergeSurvivor(old, better, n, 0.5).keep.id).toBe('better');
    const twin = agent('twin', { x: 0.6, y: 0.6 }, { exposure: { x: 10, y: 10 } });
    expect(mergeSurvivor(old, twin, n, 0.5)).toMatchObject({ keep: { id: 'old' }, retire: { id: 'twin' } });
    expect(mergeSurvivor(twin, old, n, 0.5).keep.id).toBe('twin');
  });

  it('merges into the later-spawned, slightly weaker agent when it has more exposure', () => {
    const r = pair(0.01);
    r[1] = agent('b', { x: 0.59, y: 0.6 }, { rewards: rewards(10), exposure: { x: 30, y: 20 } });
    expect(merge(ctxOf(r))[0]).toMatchObject({ keep: 'b', retire: 'a' });
  });

  it('takes the closest pair first, one per window', () => {
    const r = [
      agent('a', { x: 0.3, y: 0.3 }, { rewards: rewards(10) }),
      agent('b', { x: 0.33, y: 0.3 }, { rewards: rewards(10) }),
      agent('c', { x: 0.8, y: 0.8 }, { rewards: rewards(10) }),
      agent('d', { x: 0.81, y: 0.8 }, { rewards: rewards(10) }),
      agent('e', { x: 0.1, y: 0.9 }, { rewards: rewards(10) }),
      agent('f', { x: 0.9, y: 0.1 }, { rewards: rewards(10) }),
    ];
    expect(merge(ctxOf(r))).toMatchObject([{ keep: 'd', retire: 'c' }]);
    expect(merge(ctxOf(r, { config: { merge: { maxPerWindow: 5 } } }))).toMatchObject([{ keep: 'd', retire: 'c' }, { keep: 'b', retire: 'a' }]);
  });

  it('never takes the roster below minAgents or to the team size', () => {
    const r = pair(0); // five agents
    expect(merge(ctxOf(r, { bounds: { minAgents: 5, teamSize: 3 } }))).toEqual([]);
    expect(merge(ctxOf(r, { bounds: { minAgents: 2, teamSize: 4 } }))).toEqual([]);
    expect(merge(ctxOf(r, { bounds: { minAgents: 4, teamSize: 3 } }))).toHaveLength(1);
  });
});
