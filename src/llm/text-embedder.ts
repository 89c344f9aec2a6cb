import type { LanguageModel } from './model';

/**
 * A local text embedder, the contract every embedder of a run keeps (the hashed one, use-lite, and
 * an endpoint's `/v1/embeddings` through the pool; test/llm/embedder.contract.test.ts runs it on all
 * three): one vector per text, in order, all of one length; the same text always gives the same
 * vector, alone or in any batch (to float precision: a batched forward pass may sum in another
 * order; the same calls give the same bits, so a run stays deterministic for its seed); a text
 * with a word character gives a unit-length vector, one with
 * none the zero vector (cosine 0 with anything); a paraphrase scores above an unrelated text.
 */
export interface TextEmbedder {
  /** The embedder's name (`hashed`, `use-lite`), as `memory.embedder` names it. */
  readonly name: string;
  /** Vector length. */
  readonly dim: number;
  embed(texts: readonly string[]): Promise<Float32Array[]>;
}

/** The embedders `memory.embedder` can name; the hashed one is what the backends use when it names none. */
export const EMBEDDER_NAMES = ['hashed', 'use-lite'] as const;
/** An embedder's name. */
export type EmbedderName = (typeof EMBEDDER_NAMES)[number];

/** A model whose completions are the inner model's and whose embeddings are `embedder`'s. */
export function withEmbedder(inner: LanguageModel, embedder: TextEmbedder): LanguageModel {
  return {
    name: inner.name,
    complete: (req) => inner.complete(req),
    embed: (texts) => embedder.embed(texts),
  };
}
