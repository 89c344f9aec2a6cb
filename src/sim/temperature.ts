import { rngFrom, type Rng } from '../core/rng';

/**
 * The prompt's share of a request's draws at temperature `t`: 1 at 0 (greedy: the answer is a
 * function of the prompt), falling linearly to 0 at `independentAt` and above (every draw the
 * request's own, as with no temperature).
 */
export function promptShare(t: number, independentAt: number): number {
  if (!(independentAt > 0)) return 0;
  return Math.min(1, Math.max(0, 1 - t / independentAt));
}

/**
 * The simulator's sampling at a temperature (docs/simulated-model.md, "Temperature"): each uniform
 * draw is the prompt's i-th draw with probability `share`, else the request's own i-th draw; the
 * coin comes from a third stream. Each draw stays uniform, so one attempt succeeds as often as
 * before; two requests with the same prompt share a draw with probability share², so their
 * answers agree more as the temperature falls, and always at 0.
 */
export function temperedRng(prompt: Rng, own: Rng, coin: Rng, share: number): Rng {
  const next = (): number => {
    const p = prompt.next();
    const o = own.next();
    if (share >= 1) return p;
    if (share <= 0) return o;
    return coin.next() < share ? p : o;
  };
  return rngFrom(next, (label) => own.fork(label));
}
