import { describe, expect, it } from 'vitest';
import { Interrupt } from '../../src/core/interrupt';

describe('Interrupt', () => {
  it('gives the work its value and keeps no waiter once the work settled', async () => {
    const i = new Interrupt<'cut'>();
    await expect(i.race(Promise.resolve(7))).resolves.toBe(7);
    await expect(i.race(Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(i.waiting).toBe(0);
  });

  it('resolves every waiting race with the reason it fired with, once, and later races at once', async () => {
    const i = new Interrupt<'cut' | 'outage'>();
    const never = new Promise<number>(() => {});
    const a = i.race(never);
    const b = i.race(never);
    expect(i.waiting).toBe(2);
    i.fire('outage');
    i.fire('cut');
    await expect(a).resolves.toBe('outage');
    await expect(b).resolves.toBe('outage');
    expect(i.waiting).toBe(0);
    await expect(i.race(Promise.resolve(1))).resolves.toBe('outage');
  });

  it('follows an abort signal, and stops following it when told', () => {
    const i = new Interrupt<'cut'>();
    const ctl = new AbortController();
    const unfollow = i.follow(ctl.signal, 'cut');
    unfollow();
    ctl.abort();
    expect(i.reason).toBeUndefined();
    const ctl2 = new AbortController();
    i.follow(ctl2.signal, 'cut');
    ctl2.abort();
    expect(i.reason).toBe('cut');
  });
});
