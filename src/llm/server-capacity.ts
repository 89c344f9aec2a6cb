import { predictedStepMs, type LatencyProfile } from './latency-profiles';

/** The request shape of a run, which the maximum throughput depends on. */
export interface RunShape {
  /** Mean prompt tokens per request. */
  readonly meanPromptTokens: number;
  /** Mean generated tokens per request. */
  readonly meanCompletionTokens: number;
  /**
   * Mean KV-cache context of a sequence over its decode steps, weighted by tokens generated:
   * Σ g·(p + g/2) / Σ g over requests (p prompt tokens, g tokens generated).
   */
  readonly meanDecodeContext: number;
}

/**
 * The most output tokens per second the profile's server can produce for requests of this shape
 * (docs/latency-profiles.md, "Utilization"); null when the shape is empty.
 *
 * - batch: the best N / step(N) over batch sizes N from 1 to the largest the server holds, which
 *   is maxRunning or the number of sequences of `meanDecodeContext` tokens that fit in the KV
 *   cache, whichever is smaller; step(N) = stepFixedMs + perSequenceMs·N + perKiloContextMs·N·ctx/1000
 *   (decode only, no jitter, no prefill).
 * - api: decode speed does not depend on load, so the bound is the rate limit: requests/min ×
 *   mean completion, or tokens/min × the completion share of a request's tokens, whichever is
 *   smaller, per second.
 */
export function maxTokensPerSecond(p: LatencyProfile, shape: RunShape): number | null {
  if (!(shape.meanCompletionTokens > 0)) return null;
  if (p.kind === 'api') {
    const byRequests = p.requestsPerMinute * shape.meanCompletionTokens;
    const byTokens = p.tokensPerMinute * (shape.meanCompletionTokens / (shape.meanPromptTokens + shape.meanCompletionTokens));
    return Math.min(byRequests, byTokens) / 60;
  }
  const ctx = shape.meanDecodeContext;
  const blocksPerSeq = Math.ceil((ctx + 1) / p.blockTokens);
  const fit = Math.floor(Math.floor(p.kvCacheTokens / p.blockTokens) / blocksPerSeq);
  const nMax = Math.max(1, Math.min(p.maxRunning, fit));
  let best = 0;
  for (let n = 1; n <= nMax; n++) best = Math.max(best, (n * 1000) / predictedStepMs(p, n, ctx));
  return best;
}
