/**
 * The embedder contract (src/llm/text-embedder.ts), one set of checks run against every embedder a
 * run can have: the local hashed one, use-lite (Universal Sentence Encoder Lite in-process, offline)
 * and an endpoint's /v1/embeddings through the OpenAI pool, here a real serve-sim over HTTP.
 */
import http from 'node:http';
import https from 'node:https';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cosine } from '../../src/core/vector';
import { hashedTextEmbedder } from '../../src/engine/run/embedder-choice';
import { createUseLiteEmbedder } from '../../src/llm/use-lite-embedder';
import { loadScenario } from '../../src/index';
import { withOverrides } from '../../src/engine/scenario/scenario';
import { createModel } from '../../src/engine/run/model-stack';
import { startServeSim, type ServeSim } from '../../src/sim/server/serve-sim';

interface Subject {
  readonly name: string;
  /** A fresh embedder (no cache shared with another). */
  make(): { embed(texts: readonly string[]): Promise<Float32Array[]> };
  start?(): Promise<() => Promise<void>>;
}

const quickstart = loadScenario(path.resolve('scenarios/quickstart.json'));
let server: ServeSim | undefined;
const endpoint: Subject = {
  name: 'an endpoint\'s /v1/embeddings (the OpenAI pool, over HTTP to serve-sim)',
  start: async () => {
    server = await startServeSim({ port: 0, timeScale: 300, seed: 1 });
    return () => server!.close();
  },
  make: () => createModel(withOverrides(quickstart, {
    model: { backend: 'openai', endpoints: [{ baseURL: server!.url, model: 'sim', maxConcurrency: 8 }], embeddings: { model: 'sim' }, retries: 0, timeoutMs: 20_000 },
  } as never).scenario).model,
};
const SUBJECTS: Subject[] = [
  { name: 'hashed', make: hashedTextEmbedder },
  { name: 'use-lite', make: createUseLiteEmbedder },
  endpoint,
];

const norm = (v: Float32Array) => Math.sqrt(v.reduce((a, x) => a + x * x, 0));

describe.each(SUBJECTS)('embedder contract: $name', (subject) => {
  let stop: (() => Promise<void>) | undefined;
  beforeAll(async () => { stop = await subject.start?.(); }, 60_000);
  afterAll(async () => { await stop?.(); });

  it('gives one vector per text, in order, all of one length', async () => {
    const texts = ['Check the units before adding.', 'A list comprehension filters the evens.', 'Who wrote the letter in 1821?'];
    const out = await subject.make().embed(texts);
    expect(out).toHaveLength(3);
    expect(new Set(out.map((v) => v.length)).size).toBe(1);
    expect(out[0]!.length).toBeGreaterThan(16);
    // Each text's vector is its own: embedding it alone gives it again (to float precision: a batched forward pass may sum in another order).
    const alone = await Promise.all(texts.map((t) => subject.make().embed([t])));
    out.forEach((v, i) => v.forEach((x, j) => expect(x).toBeCloseTo(alone[i]![0]![j]!, 6)));
  }, 60_000);

  it('is deterministic: the same text gives the same vector, alone or in any batch, in any instance', async () => {
    const text = 'Solve 3x + 4 = 16 and check the answer.';
    const [alone] = await subject.make().embed([text]);
    const batch = await subject.make().embed(['something else entirely', text, 'and a third sentence about rivers']);
    const again = await subject.make().embed([text, text]);
    for (const v of [batch[1]!, again[0]!, again[1]!]) {
      for (let i = 0; i < v.length; i++) expect(v[i]).toBeCloseTo(alone![i]!, 6);
    }
  }, 60_000);

  it('gives unit vectors for text, and the zero vector (cosine 0) for a text with no word character', async () => {
    const e = subject.make();
    const [a, b] = await e.embed(['Always verify the final answer.', 'x']);
    expect(norm(a!)).toBeCloseTo(1, 4);
    expect(norm(b!)).toBeCloseTo(1, 4);
    for (const t of ['', '   ', '?!...']) {
      const [z] = await e.embed([t]);
      expect(z!.every((x) => x === 0), JSON.stringify(t)).toBe(true);
      expect(cosine(z!, a!)).toBe(0);
    }
  }, 60_000);

  it('scores a close rewording above an unrelated text', async () => {
    const [q, near, far] = await subject.make().embed([
      'Convert the units before adding the two quantities.',
      'Always convert units first, then add the quantities.',
      'The poem rhymes with a gentle meter about the sea.',
    ]);
    expect(cosine(q!, near!)).toBeGreaterThan(cosine(q!, far!) + 0.2);
  }, 60_000);
});

describe('use-lite', () => {
  it('runs in-process from the packaged weights: no request leaves the process', async () => {
    const seen: string[] = [];
    const orig = { http: http.request, https: https.request, fetch: globalThis.fetch };
    (http as { request: unknown }).request = (...a: unknown[]) => { seen.push(`http ${String(a[0])}`); return (orig.http as (...x: unknown[]) => unknown)(...a); };
    (https as { request: unknown }).request = (...a: unknown[]) => { seen.push(`https ${String(a[0])}`); return (orig.https as (...x: unknown[]) => unknown)(...a); };
    globalThis.fetch = ((...a: Parameters<typeof fetch>) => { seen.push(`fetch ${String(a[0])}`); return orig.fetch(...a); }) as typeof fetch;
    try {
      const [cat, kitten, stocks] = await createUseLiteEmbedder().embed(['cat', 'kitten', 'stock market']);
      // A sentence encoder: meaning, not letters (the hashed embedder gives these pairs ~0).
      expect(cosine(cat!, kitten!)).toBeGreaterThan(0.6);
      expect(cosine(cat!, stocks!)).toBeLessThan(0.4);
      expect(cat!.length).toBe(512);
    } finally {
      (http as { request: unknown }).request = orig.http;
      (https as { request: unknown }).request = orig.https;
      globalThis.fetch = orig.fetch;
    }
    expect(seen).toEqual([]);
  }, 60_000);
});
