import { describe, expect, it } from 'vitest';
import { createRng } from '../../src/index';
import { hash32 } from '../../src/core/hash';

describe('seeded rng', () => {
  it('gives the same sequence for the same seed and a different one for another seed', () => {
    const a = Array.from({ length: 5 }, ((r) => () => r.next())(createRng(7)));
    const b = Array.from({ length: 5 }, ((r) => () => r.next())(createRng(7)));
    const c = Array.from({ length: 5 }, ((r) => () => r.next())(createRng(8)));
    expect(a).toEqual(b);
    expect(a).not.toEqual(c);
  });

  it('forks independent streams without advancing the parent', () => {
    const r = createRng(1);
    const before = createRng(1).next();
    r.fork('x').next();
    expect(r.next()).toBe(before);
    expect(createRng(1).fork('x').next()).toBe(createRng(1).fork('x').next());
    expect(createRng(1).fork('x').next()).not.toBe(createRng(1).fork('y').next());
  });

  it('draws integers in range, roughly uniformly', () => {
    const r = createRng('u');
    const counts = [0, 0, 0, 0];
    for (let i = 0; i < 4000; i++) counts[r.int(4)]!++;
    for (const c of counts) expect(c).toBeGreaterThan(850);
  });

  it('hashes strings stably', () => {
    expect(hash32('abc')).toBe(hash32('abc'));
    expect(hash32('abc')).not.toBe(hash32('abd'));
  });
});
