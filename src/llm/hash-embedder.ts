import { hash32 } from '../core/hash';

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

/** Lowercased word tokens (Unicode letters and digits); punctuation separates words. */
export function tokenizeWords(text: string): string[] {
  return text.normalize('NFKC').toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

/** One feature of a text: its place (bucket << 1 | sign bit), weight and count. */
interface Feature { readonly place: number; readonly weight: number; tf: number }

const KIND_PREFIX = ['w\u0001', 'b\u0001', 'c\u0001'] as const;
/** Features whose places a process keeps per dim before it starts over (a vocabulary's worth). */
const PLACES_CAPACITY = 200_000;
const placeTables = new Map<number, Map<string, number>[]>();

/** bucket << 1 | (sign hash & 1) of a feature, memoized per dim and kind (the hashes are pure). */
function featurePlaces(dim: number): (kind: 0 | 1 | 2, raw: string) => number {
  let tables = placeTables.get(dim);
  if (!tables) placeTables.set(dim, tables = [new Map(), new Map(), new Map()]);
  const t = tables;
  return (kind, raw) => {
    const table = t[kind]!;
    let place = table.get(raw);
    if (place === undefined) {
      const feature = `${KIND_PREFIX[kind]}${raw}`;
      place = ((hash32(`h\u0001${feature}`) % dim) << 1) | (hash32(`s\u0001${feature}`) & 1);
      if (table.size >= PLACES_CAPACITY) table.clear();
      table.set(raw, place);
    }
    return place;
  };
}

/** Create a hashed n-gram embedder; throws RangeError on a non-positive `dim` or negative `ngram`. */
export function createHashEmbedder(opts: HashEmbedderOptions = {}): HashEmbedder {
  const dim = opts.dim ?? 256;
  const ngram = opts.ngram ?? 3;
  const wordBigrams = opts.wordBigrams ?? true;
  if (!Number.isInteger(dim) || dim <= 0) throw new RangeError(`hash embedder: dim must be a positive integer, got ${dim}`);
  if (!Number.isInteger(ngram) || ngram < 0) throw new RangeError(`hash embedder: ngram must be a non-negative integer, got ${ngram}`);

  // A feature's bucket and sign depend only on the feature and dim: computed once per process.
  const places = featurePlaces(dim);
  const embedSync = (text: string): Float32Array => {
    // Features carry a kind prefix ("w", "b", "c") so the word "the" and the trigram "the" land in
    // different buckets. Each kind is counted in its own map (no prefixed string per occurrence);
    // `order` keeps the first-seen order across kinds, the order the vector is summed in.
    const seen: [Map<string, Feature>, Map<string, Feature>, Map<string, Feature>] = [new Map(), new Map(), new Map()];
    const order: Feature[] = [];
    const count = (kind: 0 | 1 | 2, raw: string, weight: number): void => {
      const f = seen[kind].get(raw);
      if (f) f.tf += 1;
      else {
        const fresh = { place: places(kind, raw), weight, tf: 1 };
        seen[kind].set(raw, fresh);
        order.push(fresh);
      }
    };
    const words = tokenizeWords(text);
    for (let i = 0; i < words.length; i++) {
      const word = words[i] as string;
      count(0, word, WORD_WEIGHT);
      if (wordBigrams && i + 1 < words.length) count(1, `${word}\u0002${words[i + 1]}`, BIGRAM_WEIGHT);
      if (ngram > 0) {
        const padded = `<${word}>`;
        for (let j = 0; j + ngram <= padded.length; j++) count(2, padded.slice(j, j + ngram), CHAR_WEIGHT);
      }
    }
    const vec = new Float32Array(dim);
    for (const { place, weight, tf } of order) {
      // A separate sign hash makes bucket collisions cancel on average instead of piling up.
      const bucket = place >>> 1;
      const sign = (place & 1) === 0 ? 1 : -1;
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
