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

/** A feature's place in the vector: bucket << 1 | (sign hash & 1). */
function placeOf(kind: 'w' | 'b' | 'c', raw: string, dim: number): number {
  const feature = `${kind}\u0001${raw}`;
  return ((hash32(`h\u0001${feature}`) % dim) << 1) | (hash32(`s\u0001${feature}`) & 1);
}

/** What a word contributes whatever text it is in: its feature id and its char n-grams' ids, in order. */
interface WordFeatures { readonly id: number; readonly grams: readonly number[] }

/**
 * Distinct features a vocabulary holds before it starts over: about 2 MiB. A stream's texts keep
 * bringing new words (names, numbers), so a larger vocabulary grows the heap for most of a long
 * run; the words a run repeats are back in it within a few texts of a new start.
 */
export const VOCABULARY_CAPACITY = 16_384;

/**
 * The features seen by embedders of one (dim, ngram) in this process, each with an id and its place:
 * a feature's hashes, and a word's n-grams, are computed once per process instead of once per
 * occurrence (they are pure). Ids only name features while counting one text.
 */
class Vocabulary {
  private readonly words = new Map<string, WordFeatures>();
  private readonly grams = new Map<string, number>();
  private readonly bigrams = new Map<number, Map<number, number>>();
  /** Feature id → place. */
  readonly places: number[] = [];
  /** Feature id → weight (its kind's: word, bigram or char n-gram). */
  readonly weights: number[] = [];
  /** Feature id → occurrences in the text being embedded (zero between texts). */
  counts = new Uint32Array(1024);

  constructor(private readonly dim: number, private readonly ngram: number) {}

  /** Distinct features held. */
  get features(): number {
    return this.places.length;
  }

  /** Start over when full (between texts only: ids stay valid while one text is counted). */
  trim(): void {
    if (this.places.length < VOCABULARY_CAPACITY) return;
    this.words.clear();
    this.grams.clear();
    this.bigrams.clear();
    this.places.length = 0;
    this.weights.length = 0;
  }

  /** Count one occurrence of feature `id` in the text being embedded; `order` gets it on its first. */
  count(id: number, order: number[]): void {
    if (this.counts[id]!++ === 0) order.push(id);
  }

  word(word: string): WordFeatures {
    let w = this.words.get(word);
    if (!w) {
      const grams: number[] = [];
      if (this.ngram > 0) {
        const padded = `<${word}>`;
        for (let j = 0; j + this.ngram <= padded.length; j++) {
          const gram = padded.slice(j, j + this.ngram);
          let id = this.grams.get(gram);
          if (id === undefined) this.grams.set(gram, id = this.add(placeOf('c', gram, this.dim), CHAR_WEIGHT));
          grams.push(id);
        }
      }
      w = { id: this.add(placeOf('w', word, this.dim), WORD_WEIGHT), grams };
      this.words.set(word, w);
    }
    return w;
  }

  bigram(first: string, a: WordFeatures, second: string, b: WordFeatures): number {
    let row = this.bigrams.get(a.id);
    if (!row) this.bigrams.set(a.id, row = new Map());
    let id = row.get(b.id);
    if (id === undefined) row.set(b.id, id = this.add(placeOf('b', `${first}\u0002${second}`, this.dim), BIGRAM_WEIGHT));
    return id;
  }

  private add(place: number, weight: number): number {
    this.places.push(place);
    this.weights.push(weight);
    if (this.places.length > this.counts.length) {
      const grown = new Uint32Array(this.counts.length * 2);
      grown.set(this.counts);
      this.counts = grown;
    }
    return this.places.length - 1;
  }
}

const vocabularies = new Map<string, Vocabulary>();

/** Features held by the vocabulary of embedders of one `dim` and `ngram` (tests: at most VOCABULARY_CAPACITY between texts). */
export function vocabularyFeatures(dim = 256, ngram = 3): number {
  return vocabularies.get(`${dim}/${ngram}`)?.features ?? 0;
}

/** Create a hashed n-gram embedder; throws RangeError on a non-positive `dim` or negative `ngram`. */
export function createHashEmbedder(opts: HashEmbedderOptions = {}): HashEmbedder {
  const dim = opts.dim ?? 256;
  const ngram = opts.ngram ?? 3;
  const wordBigrams = opts.wordBigrams ?? true;
  if (!Number.isInteger(dim) || dim <= 0) throw new RangeError(`hash embedder: dim must be a positive integer, got ${dim}`);
  if (!Number.isInteger(ngram) || ngram < 0) throw new RangeError(`hash embedder: ngram must be a non-negative integer, got ${ngram}`);

  // A feature's bucket and sign, and a word's n-grams, depend only on them and dim: computed once per process.
  const vocabKey = `${dim}/${ngram}`;
  let vocabulary = vocabularies.get(vocabKey);
  if (!vocabulary) vocabularies.set(vocabKey, vocabulary = new Vocabulary(dim, ngram));
  const vocab = vocabulary;
  const embedSync = (text: string): Float32Array => {
    vocab.trim();
    // Features are words ("w"), word bigrams ("b") and char n-grams inside words ("c"), each kind
    // hashed with its own prefix so the word "the" and the trigram "the" land in different buckets.
    // Counted by feature id in the vocabulary's scratch counts; `order` keeps the first-seen order,
    // the order the vector is summed in.
    const words = tokenizeWords(text.length > MAX_EMBED_TEXT ? text.slice(0, MAX_EMBED_TEXT) : text);
    const order: number[] = [];
    let next = words.length > 0 ? vocab.word(words[0]!) : undefined;
    for (let i = 0; i < words.length; i++) {
      const w = next!;
      next = i + 1 < words.length ? vocab.word(words[i + 1]!) : undefined;
      vocab.count(w.id, order);
      if (wordBigrams && next) vocab.count(vocab.bigram(words[i]!, w, words[i + 1]!, next), order);
      for (const g of w.grams) vocab.count(g, order);
    }
    const { places, weights, counts } = vocab;
    const vec = new Float32Array(dim);
    for (const id of order) {
      // A separate sign hash makes bucket collisions cancel on average instead of piling up.
      const place = places[id]!;
      const bucket = place >>> 1;
      const sign = (place & 1) === 0 ? 1 : -1;
      vec[bucket] = (vec[bucket] as number) + sign * weights[id]! * (1 + Math.log(counts[id]!));
      counts[id] = 0;
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
