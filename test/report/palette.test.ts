import { describe, expect, it } from 'vitest';
import { STRUCTURE_COLORS, withUnknowns } from '../../src/report/charts/palette';

describe('structure colours', () => {
  it('keeps the built-in colours and gives structures a run added their own distinct colours', () => {
    const s = withUnknowns(STRUCTURE_COLORS, ['debate', 'toy', 'relay', 'toy']);
    expect(s.domain).toEqual([...STRUCTURE_COLORS.domain, 'toy', 'relay']);
    expect(s.range.slice(0, STRUCTURE_COLORS.range.length)).toEqual(STRUCTURE_COLORS.range);
    expect(new Set(s.range).size).toBe(s.range.length);
    expect(s.range).not.toContain('#999999');
  });
});
