import { describe, expect, it } from 'vitest';
import { segmentReport } from '../../../src/engine/meta/segment-report';
import type { RunEvent } from '../../../src/store/events';

describe('the segment report', () => {
  it('counts the stable specialists of the last lifecycle window, as the run summary does (was NaN)', () => {
    const window = (stable: Record<string, string>): RunEvent => ({
      type: 'lifecycle.window', window: 1, poolVersion: 1, roster: [], specialists: { algebra: 'a1', geometry: null, qa: 'a2' }, stable,
    } as RunEvent);
    const at = { segment: 1, procedureVersion: 1, fromTask: 0, toTask: 9 };
    const r = segmentReport([window({ algebra: 'a1' }), window({ algebra: 'a1', qa: 'a2' })], at, []);
    expect(r.stableSpecialists).toBe(2);
    expect(JSON.parse(JSON.stringify(r)).stableSpecialists).toBe(2);
    expect(segmentReport([window({})], at, []).stableSpecialists).toBe(0);
  });
});
