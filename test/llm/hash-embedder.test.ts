import { describe, expect, it } from 'vitest';
import { cosine } from '../../src/core/vector';
import { createHashEmbedder, MAX_EMBED_TEXT, tokenizeWords, VOCABULARY_CAPACITY, vocabularyFeatures } from '../../src/llm/hash-embedder';
import { normalizeArchiveText } from '../../src/individual/archive';
import { hash32 } from '../../src/core/hash';
import { createRng } from '../../src/core/rng';

const norm = (v: Float32Array): number => Math.sqrt(v.reduce((s, x) => s + x * x, 0));

describe('hash embedder', () => {
  it('is deterministic across calls and instances', async () => {
    const a = createHashEmbedder();
    const b = createHashEmbedder();
    const text = 'Check the units before adding the two quantities.';
    expect(Array.from(a.embedSync(text))).toEqual(Array.from(b.embedSync(text)));
    const [batched] = await a.embed([text]);
    expect(Array.from(batched as Float32Array)).toEqual(Array.from(a.embedSync(text)));
  });

  it('gives unit vectors of the configured length', () => {
    const e = createHashEmbedder({ dim: 64 });
    const v = e.embedSync('Always verify the final answer.');
    expect(e.dim).toBe(64);
    expect(v.length).toBe(64);
    expect(norm(v)).toBeCloseTo(1, 5);
  });

  it('embeds an empty or punctuation-only text as the zero vector, with cosine 0', () => {
    const e = createHashEmbedder();
    for (const t of ['', '   ', '?!...']) {
      const v = e.embedSync(t);
      expect(v.every((x) => x === 0)).toBe(true);
      expect(cosine(v, e.embedSync('anything at all'))).toBe(0);
    }
  });

  it('scores texts sharing words clearly above unrelated texts', () => {
    const e = createHashEmbedder();
    const q = e.embedSync('convert units before adding physical quantities');
    const similar = e.embedSync('always convert the units before adding quantities');
    const unrelated = e.embedSync('the poem rhymes with a gentle meter about the sea');
    const simScore = cosine(q, similar);
    const unrelScore = cosine(q, unrelated);
    expect(simScore).toBeGreaterThan(0.5);
    expect(simScore - unrelScore).toBeGreaterThan(0.3);
  });

  it('ignores case and punctuation, and is sensitive to word order only through bigrams', () => {
    const e = createHashEmbedder();
    expect(cosine(e.embedSync('Check Units!'), e.embedSync('check units'))).toBeCloseTo(1, 6);
    const swapped = cosine(e.embedSync('dog bites man'), e.embedSync('man bites dog'));
    expect(swapped).toBeLessThan(0.999);
    expect(swapped).toBeGreaterThan(0.6);
  });

  it('relates inflected forms through character n-grams, and not when they are disabled', () => {
    const withChars = createHashEmbedder();
    const wordsOnly = createHashEmbedder({ ngram: 0 });
    const a = 'recursion';
    const b = 'recursive';
    expect(cosine(withChars.embedSync(a), withChars.embedSync(b))).toBeGreaterThan(0.15);
    expect(Math.abs(cosine(wordsOnly.embedSync(a), wordsOnly.embedSync(b)))).toBeLessThan(0.2);
  });

  it('rejects a bad dim and mismatched cosine lengths', () => {
    expect(() => createHashEmbedder({ dim: 0 })).toThrow(RangeError);
    expect(() => cosine(new Float32Array(3), new Float32Array(4))).toThrow(RangeError);
  });

  it('tokenizes Unicode words', () => {
    expect(tokenizeWords('Ça va? Naïve-approach, x2')).toEqual(['ça', 'va', 'naïve', 'approach', 'x2']);
  });

  it('tokenizes ASCII by its fast path into exactly the tokens the Unicode path gives', () => {
    const unicode = (t: string) => t.normalize('NFKC').toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
    for (const t of ['Hello, World! 12 3.5 -7 1,000 4e5', 'snake_case and CamelCase\tTabs\nnew-lines', '<think>x</think> {"a": [1, 2]}', '', '...!!!']) {
      expect(tokenizeWords(t)).toEqual(unicode(t));
    }
  });

  it('embeds only the first 64 KiB of a text', () => {
    const e = createHashEmbedder();
    const head = 'lesson about sorting lists '.repeat(Math.ceil(MAX_EMBED_TEXT / 27)).slice(0, MAX_EMBED_TEXT);
    expect(Array.from(e.embedSync(`${head}entirely different words after the cap`))).toEqual(Array.from(e.embedSync(head)));
  });
});

describe('archive text normalization', () => {
  it('normalizes ASCII and non-ASCII text as NFKC, collapsed spaces and lower case', () => {
    expect(normalizeArchiveText('  Check   THE\tedge\n cases ')).toBe('check the edge cases');
    expect(normalizeArchiveText(' \uff21\uff22  Caf\u00e9 ')).toBe('ab café');
  });
});

describe('hash embedder: memoized features', () => {
  // The embedder as first written: every feature string built and hashed at each occurrence. The
  // memoized one (per-process vocabulary of words, n-grams and bigrams) must give the same bits.
  function reference(text: string, dim: number, ngram: number, wordBigrams: boolean): Float32Array {
    const counts = new Map<string, { weight: number; tf: number }>();
    const count = (f: string, weight: number) => { const s = counts.get(f); if (s) s.tf += 1; else counts.set(f, { weight, tf: 1 }); };
    const words = tokenizeWords(text);
    for (let i = 0; i < words.length; i++) {
      const word = words[i]!;
      count(`w\u0001${word}`, 1);
      if (wordBigrams && i + 1 < words.length) count(`b\u0001${word}\u0002${words[i + 1]}`, 0.5);
      if (ngram > 0) { const p = `<${word}>`; for (let j = 0; j + ngram <= p.length; j++) count(`c\u0001${p.slice(j, j + ngram)}`, 0.25); }
    }
    const vec = new Float32Array(dim);
    for (const [f, { weight, tf }] of counts) {
      const b = hash32(`h\u0001${f}`) % dim;
      vec[b] = vec[b]! + ((hash32(`s\u0001${f}`) & 1) === 0 ? 1 : -1) * weight * (1 + Math.log(tf));
    }
    let norm = 0;
    for (let i = 0; i < dim; i++) norm += vec[i]! ** 2;
    norm = Math.sqrt(norm);
    if (norm > 0) for (let i = 0; i < dim; i++) vec[i] = vec[i]! / norm;
    return vec;
  }

  it('gives bit for bit the vectors of the unmemoized embedder, for every option, texts repeating words', () => {
    const rng = createRng(33);
    const words = ['carry', 'the', 'digit', 'Ünïcode', 'Ⅻ', 'x2', 'sort', 'list', 'a', 'the', 'reverse'];
    for (const [dim, ngram, wordBigrams] of [[256, 3, true], [64, 2, false], [17, 0, true], [256, 4, true]] as const) {
      const e = createHashEmbedder({ dim, ngram, wordBigrams });
      for (let t = 0; t < 60; t++) {
        const text = Array.from({ length: 1 + rng.int(30) }, () => words[rng.int(words.length)]).join(rng.int(2) ? ' ' : ', ');
        expect(Array.from(e.embedSync(text))).toEqual(Array.from(reference(text, dim, ngram, wordBigrams)));
      }
    }
  });

  it('starts its vocabulary over when full, and gives the same vectors after', () => {
    const e = createHashEmbedder({ dim: 64, ngram: 3 });
    const text = 'carry the digit, then check the sum';
    const before = Array.from(e.embedSync(text));
    // Distinct words bring a word, a bigram and several n-grams each: past the capacity within a few texts.
    const rng = createRng(7);
    const word = () => Array.from({ length: 8 }, () => String.fromCharCode(97 + rng.int(26))).join('');
    let peak = 0;
    for (let t = 0; t < 12; t++) {
      e.embedSync(Array.from({ length: 600 }, word).join(' '));
      peak = Math.max(peak, vocabularyFeatures(64, 3));
    }
    expect(peak).toBeGreaterThan(VOCABULARY_CAPACITY / 2);
    expect(peak).toBeLessThan(VOCABULARY_CAPACITY + 600 * 12);
    expect(Array.from(e.embedSync(text))).toEqual(before);
    expect(Array.from(e.embedSync(text))).toEqual(Array.from(reference(text, 64, 3, true)));
  });
});
