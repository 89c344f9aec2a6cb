import type { Clock } from '../../core/clock';
import type { Rng } from '../../core/rng';
import { l2normalize } from '../../core/vector';
import type { Endpoint } from './endpoint';
import type { EmbeddingsConfig } from './openai-config';
import { AttemptTimeoutError, backoffMs, classifyFailure, type AttemptFailure, type BackoffOptions, type Sleep } from './retry-policy';

/** How the embedder retries. */
export interface EmbedderOptions {
  readonly retries: number;
  readonly timeoutMs: number;
  readonly backoff: BackoffOptions;
  readonly rng: Rng;
  readonly clock: Clock;
  readonly sleep: Sleep;
  readonly redact: (text: string) => string;
}

/**
 * Embeddings through an endpoint's `/v1/embeddings`, in batches of `batchSize` texts, retried
 * like chat requests, every vector L2-normalised (the `LanguageModel.embed` contract).
 */
export class OpenAIEmbedder {
  constructor(readonly endpoint: Endpoint, private readonly cfg: EmbeddingsConfig, private readonly o: EmbedderOptions) {}

  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    const out: Float32Array[] = [];
    for (let i = 0; i < texts.length; i += this.cfg.batchSize) {
      out.push(...await this.batch(texts.slice(i, i + this.cfg.batchSize)));
    }
    return out;
  }

  private async batch(input: string[]): Promise<Float32Array[]> {
    let last: AttemptFailure | undefined;
    for (let a = 0; a <= this.o.retries; a++) {
      if (a > 0) await this.o.sleep(last?.retryAfterMs ?? backoffMs(a, this.o.backoff, this.o.rng));
      const ep = this.endpoint;
      ep.recordStart(a > 0);
      const t0 = this.o.clock.now();
      const ctl = new AbortController();
      let timedOut = false;
      const timer = setTimeout(() => { timedOut = true; ctl.abort(); }, this.o.timeoutMs);
      timer.unref();
      try {
        const r = await ep.client.embeddings.create(
          { model: this.cfg.model, input, ...(this.cfg.dimensions ? { dimensions: this.cfg.dimensions } : {}) },
          { signal: ctl.signal },
        );
        const vectors = r.data.slice().sort((x, y) => x.index - y.index).map((d) => l2normalize(d.embedding));
        if (vectors.length !== input.length) throw new Error(`the server returned ${vectors.length} embeddings for ${input.length} inputs`);
        const tokens = r.usage?.prompt_tokens ?? 0;
        ep.recordSuccess(this.o.clock.now() - t0, this.o.clock.now() - t0, tokens, 0, 0);
        return vectors;
      } catch (err) {
        last = classifyFailure(timedOut ? new AttemptTimeoutError(this.o.timeoutMs) : err, Date.parse(this.o.clock.isoNow()));
        ep.recordFailure(last, Number.POSITIVE_INFINITY);
        if (!last.retryable) break;
      } finally {
        clearTimeout(timer);
      }
    }
    throw new Error(this.o.redact(`openai backend: embeddings on ${this.endpoint.name} failed: ${last?.kind ?? 'error'}: ${last?.message ?? 'unknown'}`));
  }
}
