import { describe, expect, it } from 'vitest';
import { deriveLoopSettings } from '../../../src/engine/loop/loop-settings';
import { loadScenario, withOverrides } from '../../../src/engine/scenario/scenario';

const base = loadScenario('scenarios/quickstart.json');
const at = (patch: Parameters<typeof withOverrides>[1]) => withOverrides(base, patch).scenario;

describe('deriveLoopSettings', () => {
  it('one task in flight is sequential: evolve outcomes settle before starts', () => {
    const s = deriveLoopSettings(at({ engine: { inFlight: 1 } }), { codream: 'asymmetric' }, 'lag');
    expect(s.window).toBe(1);
    expect(s.settleAtSync).toBe(true);
  });

  it('several in flight settle at sync only under a zero-time model (instant)', () => {
    const sc = at({ engine: { inFlight: 4 } });
    expect(deriveLoopSettings(sc, { codream: 'asymmetric' }, 'lag')).toMatchObject({ window: 4, settleAtSync: false });
    expect(deriveLoopSettings(sc, { codream: 'asymmetric' }, 'when-ready').settleAtSync).toBe(false);
    expect(deriveLoopSettings(sc, { codream: 'asymmetric' }, 'instant').settleAtSync).toBe(true);
  });

  it('auto starts at the controller\'s initial window', () => {
    const s = deriveLoopSettings(at({ engine: { inFlight: 'auto', auto: { initial: 3 } } }), { codream: 'asymmetric' }, 'lag');
    expect(s.window).toBe(3);
    expect(s.settleAtSync).toBe(false);
  });

  it('routing is the scenario\'s, else the preset\'s', () => {
    expect(deriveLoopSettings(base.scenario, { codream: 'symmetric' }, 'lag').routing).toBe('symmetric');
    expect(deriveLoopSettings(base.scenario, { codream: 'asymmetric' }, 'lag').routing).toBe('asymmetric');
    expect(deriveLoopSettings(at({ population: { codream: { routing: 'asymmetric' } } }), { codream: 'symmetric' }, 'lag').routing).toBe('asymmetric');
  });

  it('follows an edited procedure: a new lifecycle period and window are read from the new scenario', () => {
    const edited = at({ engine: { inFlight: 2 }, population: { lifecycle: { every: 7 } } });
    const s = deriveLoopSettings(edited, { codream: 'asymmetric' }, 'lag');
    expect(s.life.every).toBe(7);
    expect(s.window).toBe(2);
  });
});
