import type { Rng } from '../../core/rng';

/** Fault rates, each a probability per chat or embeddings request. */
export interface FaultRates {
  /** Answer 500 or 503. */
  readonly error: number;
  /** Answer 429 with retry headers. */
  readonly rateLimit: number;
  /** Never answer (the client must time out). */
  readonly hang: number;
  /** Destroy the connection in the middle of the response. */
  readonly drop: number;
  /**
   * Think until the token limit: the working runs to the request's `max_tokens` (or the context
   * limit), the answer is empty, `finish_reason: length` (a reasoning model's common failure).
   */
  readonly truncate: number;
}

/** What to do with one request. */
export type Fault = 'none' | 'error' | 'rate-limit' | 'hang' | 'drop' | 'truncate';

/** No faults at all. */
export const NO_FAULTS: FaultRates = { error: 0, rateLimit: 0, hang: 0, drop: 0, truncate: 0 };

const KEYS: Record<string, keyof FaultRates> = { error: 'error', '5xx': 'error', '429': 'rateLimit', hang: 'hang', drop: 'drop', truncate: 'truncate' };

/**
 * Parse `--faults`, e.g. `error=0.1,429=0.05,hang=0.02,drop=0.02,truncate=0.1` (`5xx` is an alias of
 * `error`). Missing keys keep `base`'s rate. Throws a message naming the bad part.
 */
export function parseFaults(spec: string, base: FaultRates = NO_FAULTS): FaultRates {
  const out: Record<keyof FaultRates, number> = { ...base };
  for (const part of spec.split(',').map((s) => s.trim()).filter(Boolean)) {
    const [k, v, ...rest] = part.split('=');
    const key = KEYS[(k ?? '').trim()];
    const rate = Number(v);
    if (!key || rest.length > 0 || v === undefined || v.trim() === '' || !Number.isFinite(rate) || rate < 0 || rate > 1) {
      throw new Error(`bad fault "${part}": expected KEY=RATE with KEY one of ${Object.keys(KEYS).join(', ')} and 0 ≤ RATE ≤ 1`);
    }
    out[key] = rate;
  }
  const total = out.error + out.rateLimit + out.hang + out.drop + out.truncate;
  if (total > 1) throw new Error(`fault rates add up to ${total.toFixed(3)} > 1`);
  return out;
}

/** Draw the fault for one request from a seeded stream. */
export function drawFault(rates: FaultRates, rng: Rng): Fault {
  let u = rng.next();
  if ((u -= rates.error) < 0) return 'error';
  if ((u -= rates.rateLimit) < 0) return 'rate-limit';
  if ((u -= rates.hang) < 0) return 'hang';
  if ((u -= rates.drop) < 0) return 'drop';
  if ((u -= rates.truncate) < 0) return 'truncate';
  return 'none';
}

/** The spec string of a set of rates (for the startup line). */
export function formatFaults(r: FaultRates): string {
  const parts = [['error', r.error], ['429', r.rateLimit], ['hang', r.hang], ['drop', r.drop], ['truncate', r.truncate]].filter(([, v]) => (v as number) > 0);
  return parts.length ? parts.map(([k, v]) => `${k}=${v}`).join(',') : 'none';
}
