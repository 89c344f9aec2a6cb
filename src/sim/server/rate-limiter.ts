/** The outcome of asking the rate limiter for room. */
export type RateDecision =
  | { readonly ok: true; readonly headers: Record<string, string> }
  | { readonly ok: false; readonly retryAfterMs: number; readonly limit: 'requests' | 'tokens'; readonly headers: Record<string, string> };

const WINDOW_MS = 60_000;

/**
 * Requests-per-minute and tokens-per-minute limits over a sliding one-minute window, in model
 * time, like a hosted API's. Gives the `x-ratelimit-*` headers for every answer and, when over a
 * limit, how long until the request would fit.
 */
export class RateLimiter {
  private readonly log: Array<{ at: number; tokens: number }> = [];

  /** `timeScale` converts the model-time reset figures in the headers to real seconds. */
  constructor(
    private readonly requestsPerMinute: number,
    private readonly tokensPerMinute: number,
    private readonly timeScale = 1,
  ) {}

  /** Ask for one request of `tokens` tokens at time `now` (model ms); records it when it fits. */
  take(now: number, tokens: number): RateDecision {
    while (this.log.length > 0 && this.log[0]!.at <= now - WINDOW_MS) this.log.shift();
    const usedTokens = this.log.reduce((a, e) => a + e.tokens, 0);
    const overRequests = this.log.length + 1 > this.requestsPerMinute;
    const overTokens = usedTokens + tokens > this.tokensPerMinute && this.log.length > 0;
    if (!overRequests && !overTokens) {
      this.log.push({ at: now, tokens });
      return { ok: true, headers: this.headers(now, this.log.length, usedTokens + tokens) };
    }
    // Wait until enough of the window has expired for this request to fit.
    let freedTokens = 0;
    let wait = 0;
    for (let i = 0; i < this.log.length; i++) {
      const e = this.log[i]!;
      freedTokens += e.tokens;
      const requestsFit = this.log.length - (i + 1) + 1 <= this.requestsPerMinute;
      const tokensFit = usedTokens - freedTokens + tokens <= this.tokensPerMinute;
      if (requestsFit && tokensFit) { wait = e.at + WINDOW_MS - now; break; }
      wait = e.at + WINDOW_MS - now;
    }
    return {
      ok: false,
      retryAfterMs: Math.max(1, Math.ceil(wait)),
      limit: overRequests ? 'requests' : 'tokens',
      headers: this.headers(now, this.log.length, usedTokens),
    };
  }

  private headers(now: number, requests: number, tokens: number): Record<string, string> {
    const reset = (ms: number) => `${Math.max(0, ms / 1000 / this.timeScale).toFixed(3)}s`;
    const oldest = this.log[0]?.at ?? now;
    return {
      'x-ratelimit-limit-requests': String(this.requestsPerMinute),
      'x-ratelimit-remaining-requests': String(Math.max(0, this.requestsPerMinute - requests)),
      'x-ratelimit-reset-requests': reset(oldest + WINDOW_MS - now),
      'x-ratelimit-limit-tokens': String(this.tokensPerMinute),
      'x-ratelimit-remaining-tokens': String(Math.max(0, this.tokensPerMinute - tokens)),
      'x-ratelimit-reset-tokens': reset(oldest + WINDOW_MS - now),
    };
  }
}
