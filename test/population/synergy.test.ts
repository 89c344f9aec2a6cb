import { describe, expect, it } from 'vitest';
import { createRng } from '../../src/core/rng';
import { SynergyTable } from '../../src/population/synergy';

describe('pair synergy table', () => {
  it('reads the same values as an unforgetting table for every reader still in flight', () => {
    // Tasks start and commit in stream order, so starts never go back; each reads as of its start,
    // at most `window - 1` commits before its own.
    const rng = createRng(5);
    const agents = ['a', 'b', 'c', 'd', 'e'];
    const forgetting = new SynergyTable();
    const keeping = new SynergyTable();
    const window = 4;
    let start = 0;
    for (let version = 1; version <= 400; version++) {
      const members = [...agents].sort(() => rng.next() - 0.5).slice(0, 3);
      const niche = rng.int(2) ? 'x' : 'y';
      const reward = rng.next();
      start = Math.max(start, version - 1 - rng.int(window));
      // Every task still in flight (started at or after this one's start) reads as the unforgetting table does.
      for (let t = 0; t < 10; t++) {
        const asOf = start + rng.int(version - start);
        const [i, j] = [agents[rng.int(5)]!, agents[rng.int(5)]!];
        expect(forgetting.get(i, j, niche, 0.5, asOf)).toBe(keeping.get(i, j, niche, 0.5, asOf));
      }
      expect(forgetting.apply(members, niche, reward, 0.2, 0.5, version, start)).toEqual(keeping.apply(members, niche, reward, 0.2, 0.5, version));
    }
    // What no reader can ask for any more is gone: the start of the run reads s0 now.
    expect(keeping.get('a', 'b', 'x', 0.5, 20)).not.toBe(0.5);
    expect(forgetting.get('a', 'b', 'x', 0.5, 20)).toBe(0.5);
    expect(forgetting.size).toBe(keeping.size);
  });

  it('forgets a retired agent\'s cells once no task that started before its retirement can commit, and nothing else', () => {
    const table = new SynergyTable();
    table.apply(['a', 'b', 'c'], 'x', 1, 0.5, 0.5, 1);
    table.apply(['a', 'b'], 'y', 0, 0.5, 0.5, 2);
    expect(table.size).toBe(4);
    table.retire('a', 2);
    // A task that started at version 2 may still have `a` in its team: its cells stay.
    table.apply(['a', 'c'], 'x', 1, 0.5, 0.5, 3, 2);
    expect(table.get('a', 'c', 'x', 0.5)).toBe(0.875);
    // Every task in flight started after the retirement: `a` serves in none of them.
    table.apply(['b', 'c'], 'y', 1, 0.5, 0.5, 4, 3);
    expect(table.size).toBe(2);
    expect(table.get('a', 'b', 'x', 0.5)).toBe(0.5);
    expect(table.get('b', 'c', 'x', 0.5)).toBe(0.75);
    expect(table.get('b', 'c', 'y', 0.5)).toBe(0.75);
  });
});
