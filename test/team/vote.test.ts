import { describe, expect, it } from 'vitest';
import { vote } from '../../src/index';

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
