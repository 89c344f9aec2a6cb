import { describe, expect, it } from 'vitest';
import { fork } from '../../../src/population/lifecycle/fork';
import { agent, ctxOf } from './fixtures';

// Defaults: margin 0.15, minCompetence 0.7, minExposure 10.
const pool = (lead: number, c = 0.8, e = 10) => [
  agent('a', { x: 0.55, y: 0.5 }),
  agent('b', { x: c, y: 0.5 }, { exposure: { x: e, y: 5 } }),
  agent('c', { x: c - lead, y: 0.5 }),
  agent('d', { x: 0.4, y: 0.5 }),
];

describe('fork', () => {
  it('fires when an agent dominates a niche', () => {
    const out = fork(ctxOf(pool(0.16)));
    expect(out).toEqual([{ operator: 'fork', parent: 'b', niche: 'x', reason: expect.stringContaining('leads the next best (0.64) by 0.16 (≥ 0.15)') }]);
  });

  it('does not fire just below the margin', () => {
    expect(fork(ctxOf(pool(0.14)))).toEqual([]);
  });

  it('does not fire just below the competence floor', () => {
    expect(fork(ctxOf(pool(0.2, 0.71)))).toHaveLength(1);
    expect(fork(ctxOf(pool(0.2, 0.69)))).toEqual([]);
  });

  it('does not fire with too little exposure', () => {
    expect(fork(ctxOf(pool(0.2, 0.8, 9)))).toEqual([]);
  });

  it('forks a dominant agent once while its fork child is active', () => {
    const child = agent('b2', { x: 0.5, y: 0.5 }, { origin: { kind: 'fork', parents: ['b'], poolVersion: 50 } });
    expect(fork(ctxOf([...pool(0.2), child]))).toEqual([]);
  });

  it('takes the largest lead, one per window, and respects maxAgents', () => {
    const r = [
      agent('a', { x: 0.9, y: 0.5 }, { exposure: { x: 20, y: 20 } }),
      agent('b', { x: 0.5, y: 0.95 }, { exposure: { x: 20, y: 20 } }),
      agent('c', { x: 0.5, y: 0.5 }),
      agent('d', { x: 0.5, y: 0.5 }),
    ];
    expect(fork(ctxOf(r)).map((d) => d.operator === 'fork' && d.parent)).toEqual(['b']);
    expect(fork(ctxOf(r, { config: { fork: { maxPerWindow: 3 } } })).map((d) => d.operator === 'fork' && d.parent)).toEqual(['b', 'a']);
    expect(fork(ctxOf(r, { config: { fork: { maxPerWindow: 3 } }, bounds: { maxAgents: 5 } }))).toHaveLength(1);
    expect(fork(ctxOf(r, { bounds: { maxAgents: 4 } }))).toEqual([]);
  });
});
