import { describe, expect, it } from 'vitest';
import { startGate, type StartGateInputs } from '../../../src/engine/loop/start-gate';

const open: StartGateInputs = {
  exhausted: false, inFlight: 0, limit: 2, stopped: false, cut: false, outage: false, spent: false,
  replayAllows: () => true, segmentAllows: () => true, endpointsUp: () => true, budget: () => null,
};
const stop = { limit: 'tokens' as const, budget: 100, spent: 90, projected: 120 };

describe('start gate', () => {
  it('lets a task start when nothing blocks it', () => {
    expect(startGate(open)).toEqual({ ok: true });
  });

  it.each([
    ['exhausted', { exhausted: true }],
    ['window-full', { inFlight: 2 }],
    ['stopped', { stopped: true }],
    ['cut', { cut: true }],
    ['outage', { outage: true }],
    ['budget', { spent: true }],
    ['replay', { replayAllows: () => false }],
    ['segment-end', { segmentAllows: () => false }],
    ['no-endpoint', { endpointsUp: () => false }],
  ] as const)('says %s', (reason, change) => {
    expect(startGate({ ...open, ...change })).toEqual({ ok: false, reason });
  });

  it('names the budget limit the new task would pass', () => {
    expect(startGate({ ...open, budget: () => stop })).toEqual({ ok: false, reason: 'budget', budget: stop });
  });

  it('gives the first reason in order and asks nothing after it (the budget estimate is not taken while no endpoint is up)', () => {
    let asked = 0;
    const v = startGate({ ...open, inFlight: 5, stopped: true, endpointsUp: () => false, budget: () => { asked++; return stop; } });
    expect(v).toEqual({ ok: false, reason: 'window-full' });
    expect(startGate({ ...open, endpointsUp: () => false, budget: () => { asked++; return stop; } })).toEqual({ ok: false, reason: 'no-endpoint' });
    expect(asked).toBe(0);
  });
});
