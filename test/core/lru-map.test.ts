import { describe, expect, it } from 'vitest';
import { LruMap } from '../../src/core/lru-map';

describe('LruMap', () => {
  it('holds at most its capacity and forgets the least recently used first', () => {
    const m = new LruMap<string, number>(3);
    for (const [k, v] of [['a', 1], ['b', 2], ['c', 3]] as const) m.set(k, v);
    expect(m.get('a')).toBe(1); // a is now the most recent: b goes next
    m.set('d', 4);
    expect(m.size).toBe(3);
    expect(m.has('b')).toBe(false);
    expect([m.get('a'), m.get('c'), m.get('d')]).toEqual([1, 3, 4]);
  });

  it('keeps a stored undefined or null as a hit', () => {
    const m = new LruMap<string, number | null>(2);
    m.set('x', null);
    m.set('y', 1);
    expect(m.get('x')).toBeNull();
    m.set('z', 2); // x was used after y: y goes
    expect(m.has('x')).toBe(true);
    expect(m.has('y')).toBe(false);
  });

  it('refuses a capacity below one', () => {
    expect(() => new LruMap(0)).toThrow(RangeError);
  });
});
