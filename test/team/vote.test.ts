import { describe, expect, it } from 'vitest';
import { majorityDecided, vote } from '../../src/index';

const eq = (a: string, b: string) => Number(a) === Number(b);

describe('majority vote', () => {
  it('picks the largest equivalence class, not the largest exact string', () => {
    const r = vote(['0.5', '3', '.50', '3', '0.500'], eq);
    expect(Number(r.winner)).toBe(0.5);
    expect(r.classSizes).toEqual([3, 2]);
    expect(r.disagreement).toBe(true);
  });
  it('breaks ties toward the earliest answer (the leader when listed first)', () => {
    expect(vote(['7', '8', '8', '7'], eq).winner).toBe('7');
    expect(vote(['8', '7', '7', '8'], eq).winner).toBe('8');
  });
  it('lets null answers abstain and reports no disagreement when all agree', () => {
    const r = vote([null, '2', '2.0', null], eq);
    expect(r.winner).toBe('2');
    expect(r.winnerIndex).toBe(1);
    expect(r.disagreement).toBe(false);
    expect(vote([null, null], eq).winner).toBeNull();
  });
});

describe('decided majority (speculative completion)', () => {
  const u = undefined;
  /** Every way the outstanding answers could turn out, from `pool`, and the full vote's winning class. */
  function outcomes(answers: readonly (string | null | undefined)[], pool: readonly (string | null)[]): Array<string | null> {
    const slots = answers.flatMap((a, i) => (a === undefined ? [i] : []));
    const out: Array<string | null> = [];
    const fill = (k: number, cur: (string | null)[]) => {
      if (k === slots.length) { out.push(vote(cur, eq).winner); return; }
      for (const p of pool) { const next = [...cur]; next[slots[k]!] = p; fill(k + 1, next); }
    };
    fill(0, answers.map((a) => (a === undefined ? null : a)));
    return out;
  }

  it('n = 3: two agreeing answers decide it whichever two they are; one answer or a split does not', () => {
    expect(majorityDecided(['4', '4.0', u], eq)).toBe(true);
    expect(majorityDecided([u, '4', '4'], eq)).toBe(true);
    expect(majorityDecided(['4', u, '4'], eq)).toBe(true);
    expect(majorityDecided(['4', u, u], eq)).toBe(false);
    expect(majorityDecided(['4', '5', u], eq)).toBe(false);
    expect(majorityDecided([u, u, u], eq)).toBe(false);
  });

  it('n = 5: three agreeing decide it; two against nothing else with three outstanding do not', () => {
    expect(majorityDecided(['1', '1', '1', u, u], eq)).toBe(true);
    expect(majorityDecided([u, '1', '2', '1', '1'], eq)).toBe(true);
    expect(majorityDecided(['1', '1', u, u, u], eq)).toBe(false);
    expect(majorityDecided(['1', '1', '2', u, u], eq)).toBe(false);
    // 2 vs 1 with one outstanding: the rival reaches a tie at best, and the leader's class came first.
    expect(majorityDecided(['1', '1', '2', u, '3'], eq)).toBe(true);
    // …but not when the rival's first member came before the leader's.
    expect(majorityDecided(['2', '1', '1', u, '3'], eq)).toBe(false);
  });

  it('ties: decided only when vote\'s tie rule (earliest first member) already favours the leader', () => {
    // Self-consistency with 4 samples: 2 vs 1 with sample 3 outstanding; a tie would go to sample 0's class.
    expect(majorityDecided(['7', '7', '8', u], eq)).toBe(true);
    // The outstanding sample 0 could found or join a class that would win the tie.
    expect(majorityDecided([u, '7', '7', '8'], eq)).toBe(false);
    expect(majorityDecided(['8', '7', '7', u], eq)).toBe(false);
  });

  it('null answers abstain: they neither count for a class nor stay outstanding', () => {
    // One answer against one outstanding after an abstention: a tie at best, which the earlier class wins.
    expect(majorityDecided([null, '4', u], eq)).toBe(true);
    expect(majorityDecided([u, '4', null], eq)).toBe(false);
    expect(majorityDecided([null, null, '4', u, u], eq)).toBe(false);
    expect(majorityDecided([null, '4', '4', u], eq)).toBe(true);
    expect(majorityDecided([null, null, u], eq)).toBe(false);
  });

  it('is false when nothing is outstanding (there is nothing left to cancel)', () => {
    expect(majorityDecided(['4', '4', '4'], eq)).toBe(false);
  });

  it('whenever it says decided, every completion of the outstanding answers gives the same full-vote winner', () => {
    const pool = ['1', '2', '3', null];
    const values: Array<string | null | undefined> = ['1', '2', null, u];
    let decided = 0;
    for (const n of [3, 4, 5]) {
      const all = (k: number, cur: Array<string | null | undefined>): Array<Array<string | null | undefined>> =>
        k === n ? [cur] : values.flatMap((v) => all(k + 1, [...cur, v]));
      for (const answers of all(0, [])) {
        if (!majorityDecided(answers, eq)) continue;
        decided++;
        const winners = outcomes(answers, pool);
        expect(new Set(winners.map((w) => (w === null ? null : Number(w)))).size, JSON.stringify(answers)).toBe(1);
      }
    }
    expect(decided).toBeGreaterThan(20);
  });
});
