import { describe, expect, it } from 'vitest';
import { algebraTask as task } from '../fixtures/algebra-niche';
import { resolveSimParams } from '../../src/sim/sim-params';
import { SimWorld } from '../../src/sim/sim-world';

/** For each family: how often each strategy of its own order is required, over `n` level-3 tasks. */
function frequencies(familyRarity: number, n = 1500) {
  const world = new SimWorld(4, resolveSimParams({ taskFamilies: 3, strategiesPerNiche: 24, familyRarity }));
  const counts = new Map<number, Map<string, number>>();
  const tasks = new Map<number, number>();
  for (let i = 0; i < n; i++) {
    const t = world.present(task(i));
    const f = world.familyShown('algebra', t.question)!;
    tasks.set(f, (tasks.get(f) ?? 0) + 1);
    const c = counts.get(f) ?? new Map<string, number>();
    for (const s of world.required('algebra', t.id, 3, t.question)) c.set(s.phrase, (c.get(s.phrase) ?? 0) + 1);
    counts.set(f, c);
  }
  return { world, counts, tasks };
}

describe('knowledge that does not run out (familyRarity under taskFamilies)', () => {
  it('at 0 every task of a family needs the same first strategies of its order (as before)', () => {
    const { counts, tasks } = frequencies(0, 300);
    for (const [f, c] of counts) {
      expect(c.size).toBe(3);
      for (const v of c.values()) expect(v).toBe(tasks.get(f));
    }
  });

  it('at 1.2 a family has a common core and a long tail: most of 24 strategies are needed by someone, the first far more often', () => {
    const { counts, tasks } = frequencies(1.2);
    for (const [f, c] of counts) {
      const shares = [...c.values()].map((v) => v / tasks.get(f)!).sort((a, b) => b - a);
      expect(c.size).toBeGreaterThan(15);
      expect(shares[0]).toBeGreaterThan(0.6);
      expect(shares[shares.length - 1]).toBeLessThan(0.05);
    }
  });

  it('the families\' cores differ, and a task\'s required set is read from its text (the same with and without the id)', () => {
    const { world, counts } = frequencies(1.2, 600);
    const top = [...counts.values()].map((c) => [...c.entries()].sort((a, b) => b[1] - a[1])[0]![0]);
    expect(new Set(top).size).toBeGreaterThan(1);
    const t = world.present(task(11));
    expect(world.required('algebra', t.id, 3, t.question)).toEqual(world.required('algebra', t.id, 3));
  });
});
