import { hash32 } from '../core/hash';
import { isAscii } from '../core/text';

/**
 * A local, deterministic text embedder: hashed word unigrams, word bigrams and character
 * n-grams (the "hashing trick"), so retrieval works with no model weights and no network.
 * Contract: the same text and options always give the same vector; every non-empty text gives a
 * unit-length vector; a text with no word characters gives the zero vector, whose cosine with
 * anything is 0 (see `cosine`).
 */
export interface HashEmbedder {
  /** Vector length. */
  readonly dim: number;
  /** Embed a batch; same shape as `LanguageModel.embed`, so it can stand in for an endpoint. */
  embed(texts: string[]): Promise<Float32Array[]>;
  /** Embed one text synchronously. */
  embedSync(text: string): Float32Array;
}

/** Options for `createHashEmbedder`. */
export interface HashEmbedderOptions {
  /** Number of hash buckets (vector length). Default 256. */
  dim?: number;
  /** Character n-gram length taken inside each word; 0 disables them. Default 3. */
  ngram?: number;
  /** Whether adjacent word pairs are features. Default true. */
  wordBigrams?: boolean;
}

// Whole words carry the meaning; bigrams add a little word order; char n-grams only soften
// inflections ("unit"/"units"), so each char n-gram weighs far less than a word.
const WORD_WEIGHT = 1;
const BIGRAM_WEIGHT = 0.5;
const CHAR_WEIGHT = 0.25;
/**
 * Only a text's first 64 KiB are embedded: an embedding keys retrieval on what a lesson, insight or
 * task says, and a longer text (a model stuck in a loop) would cost CPU in proportion for nothing.
 */
export const MAX_EMBED_TEXT = 64 * 1024;

/** Lowercased word tokens (Unicode letters and digits); punctuation separates words. */
export function tokenizeWords(text: string): string[] {
  // ASCII text (nearly all of it) needs no NFKC pass, and its letters and digits are [a-z0-9] once
  // lowercased: the same tokens, at a fraction of the Unicode-class regex's cost.
  if (isAscii(text)) return text.toLowerCase().match(/[a-z0-9]+/g) ?? [];
  return text.normalize('NFKC').toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

/** Create a hashed n-gram embedder; throws RangeError on a non-positive `dim` or negative `ngram`. */
export function createHashEmbedder(opts: HashEmbedderOptions = {}): HashEmbedder {
  const dim = opts.dim ?? 256;
  const ngram = opts.ngram ?? 3;
  const wordBigrams = opts.wordBigrams ?? true;
  if (!Number.isInteger(dim) || dim <= 0) throw new RangeError(`hash embedder: dim must be a positive integer, got ${dim}`);
  if (!Number.isInteger(ngram) || ngram < 0) throw new RangeError(`hash embedder: ngram must be a non-negative integer, got ${ngram}`);

  const embedSync = (text: string): Float32Array => {
    // Features carry a kind prefix so the word "the" and the trigram "the" land in different buckets.
    const counts = new Map<string, { weight: number; tf: number }>();
    const count = (feature: string, weight: number): void => {
      const seen = counts.get(feature);
      if (seen) seen.tf += 1;
      else counts.set(feature, { weight, tf: 1 });
    };
    const words = tokenizeWords(text.length > MAX_EMBED_TEXT ? text.slice(0, MAX_EMBED_TEXT) : text);
    for (let i = 0; i < words.length; i++) {
      const word = words[i] as string;
      count(`w\u0001${word}`, WORD_WEIGHT);
      if (wordBigrams && i + 1 < words.length) count(`b\u0001${word}\u0002${words[i + 1]}`, BIGRAM_WEIGHT);
      if (ngram > 0) {
        const padded = `<${word}>`;
        for (let j = 0; j + ngram <= padded.length; j++) count(`c\u0001${padded.slice(j, j + ngram)}`, CHAR_WEIGHT);
      }
    }
    const vec = new Float32Array(dim);
    for (const [feature, { weight, tf }] of counts) {
      // A separate sign hash makes bucket collisions cancel on average instead of piling up.
      const bucket = hash32(`h\u0001${feature}`) % dim;
      const sign = (hash32(`s\u0001${feature}`) & 1) === 0 ? 1 : -1;
      vec[bucket] = (vec[bucket] as number) + sign * weight * (1 + Math.log(tf));
    }
    let norm = 0;
    for (let i = 0; i < dim; i++) norm += (vec[i] as number) ** 2;
    norm = Math.sqrt(norm);
    if (norm > 0) for (let i = 0; i < dim; i++) vec[i] = (vec[i] as number) / norm;
    return vec;
  };

  return {
    dim,
    embed: async (texts) => texts.map(embedSync),
    embedSync,
  };
}
