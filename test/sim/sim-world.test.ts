import { describe, expect, it } from 'vitest';
import { DEFAULT_SIM_PARAMS } from '../../src/index';
import { createRng } from '../../src/core/rng';
import { SimWorld } from '../../src/sim/sim-world';

describe('simulated world', () => {
  it('mentioned finds exactly the strategies whose phrase occurs in the text, case-insensitive, in creation order', () => {
    const world = new SimWorld(7, DEFAULT_SIM_PARAMS);
    const all = ['arithmetic', 'algebra', 'people-qa'].flatMap((n) => [...world.nicheStrategies(n), ...world.decoyStrategies(n)])
      .concat(world.domainStrategies('math'), world.crossStrategies());
    const rng = createRng('mentioned');
    const filler = ['the', 'a-b', '-', '--', 'pass', 'x-', 'Lattice-', 'check', '\n', '-pass', 'İ-'];
    for (let k = 0; k < 300; k++) {
      const parts: string[] = [];
      for (let j = 0; j < 12; j++) {
        const r = rng.next();
        if (r < 0.25) {
          const s = all[Math.floor(rng.next() * all.length)]!;
          // Sometimes upper-cased, glued to other letters, or cut short by one character.
          const p = rng.next() < 0.3 ? s.phrase.toUpperCase() : rng.next() < 0.2 ? s.phrase.slice(0, -1) : s.phrase;
          parts.push(rng.next() < 0.3 ? `x${p}s` : p);
        } else parts.push(filler[Math.floor(rng.next() * filler.length)]!);
      }
      const text = parts.join(rng.next() < 0.5 ? ' ' : '');
      const lower = text.toLowerCase();
      const expected = all.filter((s) => lower.includes(s.phrase));
      const got = world.mentioned(text);
      expect(new Set(got)).toEqual(new Set(expected));
      expect(got).toHaveLength(expected.length);
    }
    expect(world.mentioned('no strategy here')).toEqual([]);
  });
});
