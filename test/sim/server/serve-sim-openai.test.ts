import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServeSim, type ServeSim } from '../../../src/sim/server/serve-sim';

// The official `openai` client against serve-sim: every shape it parses must come back right.
let sim: ServeSim;
let client: OpenAI;

beforeAll(async () => {
  sim = await startServeSim({ port: 0, timeScale: 200, seed: 3 });
  client = new OpenAI({ baseURL: sim.url, apiKey: 'EMPTY', maxRetries: 0, timeout: 20_000 });
});
afterAll(async () => { await sim.close(); });

const messages = [{ role: 'user' as const, content: 'Name a prime number.' }];

describe('serve-sim with the official openai client', () => {
  it('answers a plain chat completion with usage', async () => {
    const r = await client.chat.completions.create({ model: 'sim', messages, max_tokens: 40 });
    expect(r.object).toBe('chat.completion');
    expect(r.choices).toHaveLength(1);
    expect(r.choices[0]!.message.role).toBe('assistant');
    expect(r.choices[0]!.message.content!.length).toBeGreaterThan(0);
    expect(r.choices[0]!.finish_reason).toBe('length');
    expect(r.usage!.completion_tokens).toBe(40);
    expect(r.usage!.total_tokens).toBe(r.usage!.prompt_tokens + 40);
  });

  it('streams the same answer as SSE chunks and ends with a usage chunk', async () => {
    const stream = await client.chat.completions.create({
      model: 'sim', messages, max_tokens: 60, seed: 7, stream: true, stream_options: { include_usage: true },
    });
    let text = '';
    let chunks = 0;
    let usage: OpenAI.CompletionUsage | null | undefined;
    let finish: string | null | undefined;
    for await (const c of stream) {
      chunks++;
      text += c.choices[0]?.delta?.content ?? '';
      finish = c.choices[0]?.finish_reason ?? finish;
      if (c.usage) usage = c.usage;
    }
    const plain = await client.chat.completions.create({ model: 'sim', messages, max_tokens: 60, seed: 7 });
    expect(chunks).toBeGreaterThan(3);
    expect(text).toBe(plain.choices[0]!.message.content);
    expect(finish).toBe('length');
    expect(usage?.completion_tokens).toBe(60);
  });

  it('embeds as floats and as base64 (the client default) with the same vectors', async () => {
    const input = ['lattice ledger pass', 'a different text'];
    const asFloat = await client.embeddings.create({ model: 'sim', input, encoding_format: 'float' });
    const asDefault = await client.embeddings.create({ model: 'sim', input });
    expect(asFloat.data).toHaveLength(2);
    for (let i = 0; i < 2; i++) {
      const a = asFloat.data[i]!.embedding;
      const b = asDefault.data[i]!.embedding;
      expect(b.length).toBe(a.length);
      for (let j = 0; j < a.length; j++) expect(b[j]).toBeCloseTo(a[j]!, 6);
    }
    expect(asFloat.usage.prompt_tokens).toBeGreaterThan(0);
  });

  it('lists its model as owned by the simulator', async () => {
    const page = await client.models.list();
    expect(page.data.map((m) => [m.id, m.owned_by])).toEqual([['sim', 'evochamber-sim']]);
  });

  it('raises the client error classes for OpenAI-shaped errors', async () => {
    await expect(client.chat.completions.create({ model: 'sim', messages: [] })).rejects.toMatchObject({
      status: 400, type: 'invalid_request_error', param: 'messages',
    });
    await expect(client.models.retrieve('nope')).rejects.toBeInstanceOf(OpenAI.NotFoundError);
  });

  it('answers injected 429s with retry headers and 5xx as server errors', async () => {
    const limited = await startServeSim({ port: 0, timeScale: 200, faults: '429=1' });
    const failing = await startServeSim({ port: 0, timeScale: 200, faults: 'error=1' });
    try {
      const c429 = new OpenAI({ baseURL: limited.url, apiKey: 'EMPTY', maxRetries: 0 });
      const err = await c429.chat.completions.create({ model: 'sim', messages }).catch((e: unknown) => e) as InstanceType<typeof OpenAI.APIError>;
      expect(err).toBeInstanceOf(OpenAI.RateLimitError);
      expect(Number(err.headers?.get('retry-after-ms'))).toBeGreaterThan(0);
      expect(err.headers?.get('retry-after')).toMatch(/^\d+$/);
      expect(err.code).toBe('rate_limit_exceeded');
      const c5xx = new OpenAI({ baseURL: failing.url, apiKey: 'EMPTY', maxRetries: 0 });
      const e5 = await c5xx.chat.completions.create({ model: 'sim', messages }).catch((e: unknown) => e) as InstanceType<typeof OpenAI.APIError>;
      expect(e5).toBeInstanceOf(OpenAI.InternalServerError);
      expect([500, 503]).toContain(e5.status);
      expect(e5.type).toBe('server_error');
    } finally {
      await limited.close();
      await failing.close();
    }
  });

  it('holds hung requests until the client gives up, and cuts dropped ones mid-response', async () => {
    const hang = await startServeSim({ port: 0, timeScale: 200, faults: 'hang=1' });
    const drop = await startServeSim({ port: 0, timeScale: 200, faults: 'drop=1' });
    try {
      const ch = new OpenAI({ baseURL: hang.url, apiKey: 'EMPTY', maxRetries: 0, timeout: 300 });
      await expect(ch.chat.completions.create({ model: 'sim', messages })).rejects.toBeInstanceOf(OpenAI.APIConnectionTimeoutError);
      const cd = new OpenAI({ baseURL: drop.url, apiKey: 'EMPTY', maxRetries: 0 });
      await expect(cd.chat.completions.create({ model: 'sim', messages, max_tokens: 20 })).rejects.toThrow();
      const stream = await cd.chat.completions.create({ model: 'sim', messages, max_tokens: 20, stream: true });
      await expect((async () => { for await (const _ of stream) { /* drain */ } })()).rejects.toThrow();
    } finally {
      await hang.close();
      await drop.close();
    }
  });

  it('limits requests per minute on the api-small profile with 429 and x-ratelimit headers', async () => {
    const api = await startServeSim({ port: 0, profile: 'api-small', timeScale: 100, faults: 'error=0', requestsPerMinute: 2 });
    try {
      const c = new OpenAI({ baseURL: api.url, apiKey: 'EMPTY', maxRetries: 0 });
      const ok = await c.chat.completions.create({ model: 'sim', messages, max_tokens: 5 }).withResponse();
      expect(ok.response.headers.get('x-ratelimit-limit-requests')).toBe('2');
      expect(ok.response.headers.get('x-ratelimit-remaining-requests')).toBe('1');
      await c.chat.completions.create({ model: 'sim', messages, max_tokens: 5 });
      const err = await c.chat.completions.create({ model: 'sim', messages, max_tokens: 5 }).catch((e: unknown) => e) as InstanceType<typeof OpenAI.APIError>;
      expect(err.status).toBe(429);
      expect(err.headers?.get('x-ratelimit-remaining-requests')).toBe('0');
      // A model minute is 600 ms of real time at ×100; the wait asked for is within it.
      const wait = Number(err.headers?.get('retry-after-ms'));
      expect(wait).toBeGreaterThan(0);
      expect(wait).toBeLessThanOrEqual(600);
    } finally {
      await api.close();
    }
  });
});
