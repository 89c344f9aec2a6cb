import { describe, expect, it } from 'vitest';
import { createRng } from '../../src/core/rng';
import { cosine } from '../../src/core/vector';
import { createHashEmbedder } from '../../src/llm/hash-embedder';
import { VectorIndex } from '../../src/store/vector-index';
import { Archive, type ArchiveEntry } from '../../src/individual/archive';

const embedder = createHashEmbedder();
const WORDS = 'isolate the variable carry each digit sort the list reverse string person born year event count sum product check units'.split(' ');

function items(n: number, seed = 1): { key: Float32Array; n: number }[] {
  const rng = createRng(seed);
  return Array.from({ length: n }, (_, i) => ({ n: i, key: embedder.embedSync(Array.from({ length: 8 }, () => WORDS[Math.floor(rng.next() * WORDS.length)]).join(' ')) }));
}

/** The reference: every item scored with `cosine`, most similar first, ties in insertion order. */
function bruteForce(all: readonly { key: Float32Array; n: number }[], q: Float32Array, k: number): number[] {
  return all.map((x) => ({ n: x.n, sim: cosine(q, x.key) })).sort((a, b) => b.sim - a.sim || a.n - b.n).slice(0, k).map((x) => x.n);
}

describe('VectorIndex: exact below the limit, hnswlib above, the same top-k', () => {
  it('searches exactly (no hnswlib index) below its limit, with ties in insertion order', () => {
    const all = items(300);
    const exact = new VectorIndex<{ key: Float32Array; n: number }>(embedder.dim);
    for (const x of all) exact.add(x);
    const queries = items(40, 7).map((x) => x.key);
    for (const q of queries) expect(exact.search(q, 6).map((r) => r.item.n)).toEqual(bruteForce(all, q, 6));
    expect(exact.indexed).toBe(false);
    // Many duplicates (8 words of a small vocabulary): ties are common and go to the older item.
    const dup = { key: all[0]!.key, n: 999 };
    exact.add(dup);
    expect(exact.search(all[0]!.key, 1)[0]!.item.n).toBe(0);
  });

  it('returns the same top-k through hnswlib at these sizes, and rebuilds the same index after release', () => {
    const all = items(300);
    const exact = new VectorIndex<{ key: Float32Array; n: number }>(embedder.dim);
    const hnsw = new VectorIndex<{ key: Float32Array; n: number }>(embedder.dim, { exactLimit: 0 });
    for (const x of all) { exact.add(x); hnsw.add(x); }
    const queries = items(40, 7).map((x) => x.key);
    const accept = (x: { n: number }) => x.n % 3 !== 0;
    const first = queries.map((q) => hnsw.search(q, 6, accept).map((r) => r.item.n));
    expect(hnsw.indexed).toBe(true);
    expect(first).toEqual(queries.map((q) => exact.search(q, 6, accept).map((r) => r.item.n)));
    hnsw.release();
    expect(hnsw.indexed).toBe(false);
    expect(queries.map((q) => hnsw.search(q, 6, accept).map((r) => r.item.n))).toEqual(first);
  });
});

describe('VectorIndex: keys with a shared head', () => {
  it('scores bit for bit as without the option, keys grouped by head or not, with a filter', () => {
    const rng = createRng(5);
    const heads = items(4, 11).map((x) => x.key);
    const tail = 3;
    const dim = embedder.dim + tail;
    // Runs of keys sharing a head (as a niche's leadership records do), heads repeating after others, and -0 against 0.
    const all = Array.from({ length: 400 }, (_, n) => {
      const key = new Float32Array(dim);
      key.set(heads[Math.floor(n / 37) % heads.length]!);
      for (let i = 0; i < tail; i++) key[embedder.dim + i] = rng.next() - 0.5;
      if (n % 50 === 7) key[0] = key[0] === 0 ? -0 : key[0]!;
      return { key, n };
    });
    const plain = new VectorIndex<{ key: Float32Array; n: number }>(dim);
    const shared = new VectorIndex<{ key: Float32Array; n: number }>(dim, { head: embedder.dim });
    for (const x of all) { plain.add(x); shared.add(x); }
    const queries = [...heads, ...items(6, 13).map((x) => x.key)].map((h, qi) => {
      const q = new Float32Array(dim);
      q.set(h);
      for (let i = 0; i < tail; i++) q[embedder.dim + i] = ((qi * 7 + i) % 5) / 10 - 0.2;
      return q;
    });
    const accept = (x: { n: number }) => x.n % 4 !== 1;
    for (const q of queries) {
      for (const k of [1, 8, 400]) {
        const want = plain.search(q, k, accept);
        const got = shared.search(q, k, accept);
        expect(got.map((r) => r.item.n)).toEqual(want.map((r) => r.item.n));
        // Object.is: the same doubles, bit for bit.
        got.forEach((r, i) => expect(Object.is(r.sim, want[i]!.sim)).toBe(true));
      }
    }
    expect(() => new VectorIndex(dim, { head: dim + 1 })).toThrow(RangeError);
  });

  it('admits by a bound on each item\'s stamp exactly as the same test over the items', () => {
    const rng = createRng(9);
    const heads = items(3, 17).map((x) => x.key);
    const dim = embedder.dim + 3;
    // 300 items: the tails' contiguous copy grows past its first 64 slots.
    const all = Array.from({ length: 300 }, (_, n) => {
      const key = new Float32Array(dim);
      key.set(heads[Math.floor(n / 41) % heads.length]!);
      for (let i = 0; i < 3; i++) key[embedder.dim + i] = rng.next() - 0.5;
      return { key, n, at: Math.floor(n / 3) };
    });
    const plain = new VectorIndex<{ key: Float32Array; n: number; at: number }>(dim);
    const stamped = new VectorIndex<{ key: Float32Array; n: number; at: number }>(dim, { head: embedder.dim, stamp: (x) => x.at });
    for (const x of all) { plain.add(x); stamped.add(x); }
    for (const h of heads) {
      const q = new Float32Array(dim);
      q.set(h);
      q[embedder.dim] = 0.3;
      for (const upTo of [-1, 0, 40, 99, Infinity]) {
        for (const k of [1, 12, 300]) {
          const want = plain.search(q, k, (x) => x.at <= upTo);
          const got = stamped.search(q, k, { upTo });
          expect(got.map((r) => r.item.n)).toEqual(want.map((r) => r.item.n));
          got.forEach((r, i) => expect(Object.is(r.sim, want[i]!.sim)).toBe(true));
        }
      }
    }
    expect(() => plain.search(all[0]!.key, 1, { upTo: 3 })).toThrow(/stamp/);
  });
});

describe('Archive: entries stored once', () => {
  const entry = (text: string, key: Float32Array): ArchiveEntry => ({ id: text, text, niche: 'n', level: 'subdomain', source: 'codream', taskId: null, poolVersion: 0, key });

  it('an insight routed to 100 agents is one stored key, and a reused buffer with new content is copied again', () => {
    const key = embedder.embedSync('carry each digit');
    const archives = Array.from({ length: 100 }, () => new Archive({ dim: embedder.dim }));
    for (const a of archives) a.add(entry('carry each digit', key));
    const stored = new Set(archives.map((a) => a.entries()[0]!.key));
    expect(stored.size).toBe(1);
    expect([...stored][0]).not.toBe(key);
    key.set(embedder.embedSync('sort the list'));
    const other = new Archive({ dim: embedder.dim });
    other.add(entry('sort the list', key));
    expect(other.entries()[0]!.key).not.toBe([...stored][0]);
    expect(cosine(other.entries()[0]!.key, embedder.embedSync('sort the list'))).toBeCloseTo(1, 6);
    expect(cosine([...stored][0]!, embedder.embedSync('carry each digit'))).toBeCloseTo(1, 6);
    // Merging shares the stored key too.
    other.mergeFrom(archives[0]!);
    expect(other.entries()[1]!.key).toBe([...stored][0]);
  });
});
