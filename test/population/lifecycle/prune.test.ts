import { describe, expect, it } from 'vitest';
import { prune, recentScore } from '../../../src/population/lifecycle/prune';
import { RewardHistory } from '../../../src/individual/reward-history';
import { agent, ctxOf, rewards } from './fixtures';

// Defaults: window 20, lag 0.2, one per window. Four agents at 0.8 and one at `x`:
// pool mean = (3.2 + x) / 5, so the laggard's lag is (3.2 − 4x) / 5.
const pool = (x: number, extra: ReturnType<typeof agent>[] = []) => [
  agent('a', {}, { rewards: rewards(20, 0.8) }),
  agent('b', {}, { rewards: rewards(20, 0.8) }),
  agent('c', {}, { rewards: rewards(20, 0.8) }),
  agent('d', {}, { rewards: rewards(20, 0.8) }),
  agent('e', {}, { rewards: rewards(20, x) }),
  ...extra,
];

describe('prune', () => {
  it('retires an agent whose recent score lags the pool mean by the threshold', () => {
    const out = prune(ctxOf(pool(0.54))); // lag 0.208
    expect(out).toEqual([{ operator: 'prune', agent: 'e', reason: expect.stringContaining('0.208 below what the 5 judged agents scored on the same niches') }]);
  });

  it('compares like with like: an agent working a hard niche is judged against the pool on that niche', () => {
    const on = (id: string, niche: string, r: number, n = 20) => {
      const a = agent(id, {}, { rewards: rewards(n, r) });
      return { ...a, history: RewardHistory.of(a.history.map((h) => ({ ...h, niche }))) };
    };
    // The hard-niche agents score 0.3, far below the pool's overall mean (0.64), but as well as
    // anyone on that niche: nobody is pruned. A real laggard on the easy niche still is.
    const roster = [on('a', 'easy', 0.9), on('b', 'easy', 0.9), on('c', 'easy', 0.9), on('d', 'hard', 0.3), on('e', 'hard', 0.3)];
    expect(prune(ctxOf(roster))).toEqual([]);
    const withLaggard = [...roster, on('f', 'easy', 0.5)];
    expect(prune(ctxOf(withLaggard)).map((d) => d.operator === 'prune' && d.agent)).toEqual(['f']);
  });

  it('does not fire just under the lag', () => {
    expect(prune(ctxOf(pool(0.56)))).toEqual([]); // lag 0.192
  });

  it('judges only the last window of observations, and only agents that have a full window', () => {
    const recovered = agent('e', {}, { rewards: [...rewards(20, 0), ...rewards(20, 0.8)] });
    expect(recentScore(recovered, 20)).toBeCloseTo(0.8);
    expect(prune(ctxOf([...pool(0.8).slice(0, 4), recovered]))).toEqual([]);
    const fresh = agent('f', {}, { rewards: rewards(19, 0) });
    expect(recentScore(fresh, 20)).toBeNull();
    expect(prune(ctxOf(pool(0.8, [fresh])))).toEqual([]);
  });

  it('never goes below minAgents', () => {
    expect(prune(ctxOf(pool(0), { bounds: { minAgents: 5, teamSize: 1 } }))).toEqual([]);
    expect(prune(ctxOf(pool(0), { bounds: { minAgents: 4, teamSize: 1 } }))).toHaveLength(1);
  });

  it('never leaves a roster no larger than the team', () => {
    expect(prune(ctxOf(pool(0), { bounds: { minAgents: 1, teamSize: 4 } }))).toEqual([]);
    expect(prune(ctxOf(pool(0), { bounds: { minAgents: 1, teamSize: 3 } }))).toHaveLength(1);
  });

  it('takes the worst laggards first, up to maxPerWindow and the room above the floor', () => {
    const r = pool(0.1, [agent('f', {}, { rewards: rewards(20, 0) }), agent('g', {}, { rewards: rewards(20, 0.05) })]);
    const at = (maxPerWindow: number, minAgents = 3) => prune(ctxOf(r, { bounds: { minAgents, teamSize: 1 }, config: { prune: { maxPerWindow } } })).map((d) => d.operator === 'prune' && d.agent);
    expect(at(1)).toEqual(['f']);
    expect(at(3)).toEqual(['f', 'g', 'e']);
    expect(at(3, 6)).toEqual(['f']);
  });
});
