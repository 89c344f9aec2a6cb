import { beforeAll, describe, expect, it } from 'vitest';
import { createRng } from '../../../src/core/rng';
import { OpenAIPoolModel } from '../../../src/llm/openai/openai-pool-model';
import { loadOpenAI } from '../../../src/llm/openai/openai-sdk';
import { apiError, chat, fakeFetch, json, recordingSleep } from './fake-fetch';

const req = (over: Record<string, unknown> = {}) => ({ messages: [{ role: 'user' as const, content: 'q' }], stage: 'solve' as const, ...over });
const ep = (host: string, over: Record<string, unknown> = {}) => ({ baseURL: `http://${host}/v1`, model: 'm', maxConcurrency: 4, ...over });

// A pool loads the SDK before its first request; loaded here, the tests' short waits see requests go out.
beforeAll(() => loadOpenAI());

describe('OpenAI pool: routing', () => {
  it('sends each request to the endpoint with the fewest in flight and queues when all are full', async () => {
    const release: Array<() => void> = [];
    const { fetch, calls } = fakeFetch(() => new Promise((resolve) => release.push(() => resolve(chat('ok')))));
    const pool = new OpenAIPoolModel({ endpoints: [ep('a:1', { maxConcurrency: 2 }), ep('b:1', { maxConcurrency: 1 })] }, { fetch, env: {} });
    const pending = Array.from({ length: 5 }, () => pool.complete(req()));
    await new Promise((r) => setTimeout(r, 20));
    // a, b, a (least outstanding, ties to configuration order), then both are full: two wait.
    expect(calls.map((c) => c.host)).toEqual(['a:1', 'b:1', 'a:1']);
    expect(pool.stats()['m@a:1/v1']!.outstanding).toBe(2);
    while (release.length) { release.shift()!(); await new Promise((r) => setTimeout(r, 10)); }
    await Promise.all(pending);
    expect(calls).toHaveLength(5);
    expect(Object.values(pool.stats()).map((s) => s.outstanding)).toEqual([0, 0]);
  });

  it('serves its waiting queue by priority, lower first, ties first come first served (none counts as 0)', async () => {
    const release: Array<() => void> = [];
    const { fetch, calls } = fakeFetch(() => new Promise((resolve) => release.push(() => resolve(chat('ok')))));
    const pool = new OpenAIPoolModel({ endpoints: [ep('a:1', { maxConcurrency: 1 })] }, { fetch, env: {} });
    const ask = (name: string, priority?: number) => pool.complete({ ...req(priority === undefined ? {} : { priority }), messages: [{ role: 'user' as const, content: name }] });
    // The first takes the only slot; the rest wait, arriving in this order.
    const pending = [ask('first', 9), ask('p5', 5), ask('p1-a', 1), ask('none'), ask('p1-b', 1), ask('p0', 0)];
    await new Promise((r) => setTimeout(r, 20));
    while (release.length || calls.length < pending.length) {
      release.shift()?.();
      await new Promise((r) => setTimeout(r, 10));
    }
    await Promise.all(pending);
    const sent = calls.map((c) => (c.body!.messages as Array<{ content: string }>)[0]!.content);
    expect(sent).toEqual(['first', 'none', 'p0', 'p1-a', 'p1-b', 'p5']);
    // The priority also travels to the server (vLLM's body field).
    expect(calls.map((c) => c.body!.priority)).toEqual([9, undefined, 0, 1, 1, 5]);
  });

  it('binds agents to endpoint groups or models (heterogeneous pool)', async () => {
    const { fetch, calls } = fakeFetch(() => chat('ok'));
    const pool = new OpenAIPoolModel({
      endpoints: [ep('small:1'), ep('big:1', { model: 'big-model', group: 'big' })],
      bindings: { 'agent-01': 'big', 'agent-02': 'big-model' },
    }, { fetch, env: {} });
    await pool.complete(req({ agentId: 'agent-01' }));
    await pool.complete(req({ agentId: 'agent-02' }));
    await pool.complete(req({ agentId: 'agent-03' }));
    expect(calls.map((c) => [c.host, c.body!.model])).toEqual([['big:1', 'big-model'], ['big:1', 'big-model'], ['small:1', 'm']]);
    expect(() => new OpenAIPoolModel({ endpoints: [ep('a:1')], bindings: { x: 'nope' } })).toThrow(/no endpoint has group or model "nope"/);
  });

  it('sends the seed and the x-evochamber-* hints, and keeps reasoning out of the answer', async () => {
    const { fetch, calls } = fakeFetch(() => chat('<think>scratch work</think>\nAnswer: 4', { reasoning_content: 'more thoughts' }));
    const pool = new OpenAIPoolModel({ endpoints: [ep('a:1')] }, { fetch, env: {} });
    const out = await pool.complete(req({ taskId: 'math 7', seedKey: 'math 7/agent-01/solve/0', agentId: 'agent-01' }));
    expect(out.text).toBe('Answer: 4');
    expect(out.reasoning).toBe('more thoughts\nscratch work');
    expect(out.usage).toEqual({ promptTokens: 10, completionTokens: 5 });
    const h = calls[0]!.headers;
    expect(decodeURIComponent(h['x-evochamber-task']!)).toBe('math 7');
    expect(decodeURIComponent(h['x-evochamber-seed-key']!)).toBe('math 7/agent-01/solve/0');
    expect(h['x-evochamber-stage']).toBe('solve');
    expect(h['x-evochamber-agent']).toBe('agent-01');
    const seed = calls[0]!.body!.seed as number;
    expect(Number.isInteger(seed) && seed >= 0 && seed < 2 ** 31).toBe(true);
    expect(pool.stats()['m@a:1/v1']!.reasoningTokens).toBeGreaterThan(0);
  });

  it('adds and removes endpoints while running', async () => {
    const { fetch, calls } = fakeFetch(() => chat('ok'));
    const pool = new OpenAIPoolModel({ endpoints: [ep('a:1')] }, { fetch, env: {} });
    await pool.complete(req());
    const name = pool.addEndpoint(ep('b:1'));
    expect(pool.removeEndpoint('m@a:1/v1')).toBe(true);
    await pool.complete(req());
    expect(calls.map((c) => c.host)).toEqual(['a:1', 'b:1']);
    expect(pool.removeEndpoint(name)).toBe(true);
    await expect(pool.complete(req())).rejects.toThrow(/no endpoint in the pool/);
    expect(pool.stats()['m@a:1/v1']!.active).toBe(false);
  });

  it('embeds through /embeddings in batches and L2-normalises, else locally', async () => {
    const { fetch, calls } = fakeFetch((c) => {
      const input = c.body!.input as string[];
      // The client asks for base64 (little-endian float32) unless told otherwise.
      expect(c.body!.encoding_format).toBe('base64');
      const b64 = Buffer.from(new Float32Array([3, 4]).buffer).toString('base64');
      return json(200, { object: 'list', model: 'e', data: input.map((_, i) => ({ object: 'embedding', index: i, embedding: b64 })), usage: { prompt_tokens: 2, total_tokens: 2 } });
    });
    const pool = new OpenAIPoolModel({ endpoints: [ep('a:1')], embeddings: { model: 'e', batchSize: 2 } }, { fetch, env: {} });
    const vs = await pool.embed(['a', 'b', 'c']);
    expect(calls.map((c) => (c.body!.input as string[]).length)).toEqual([2, 1]);
    expect(calls[0]!.path).toBe('/v1/embeddings');
    expect(Array.from(vs[2]!)).toEqual([expect.closeTo(0.6, 6), expect.closeTo(0.8, 6)]);
    const local = new OpenAIPoolModel({ endpoints: [ep('a:1')] }, { fetch, env: {} });
    expect((await local.embed(['hello']))[0]!.length).toBe(256);
  });

  it('streams with usage and measures time to first token', async () => {
    const sse = ['{"id":"c","object":"chat.completion.chunk","created":0,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}',
      '{"id":"c","object":"chat.completion.chunk","created":0,"model":"m","choices":[{"index":0,"delta":{"reasoning_content":"hmm"},"finish_reason":null}]}',
      '{"id":"c","object":"chat.completion.chunk","created":0,"model":"m","choices":[{"index":0,"delta":{"content":"Answer: 5"},"finish_reason":"stop"}]}',
      '{"id":"c","object":"chat.completion.chunk","created":0,"model":"m","choices":[],"usage":{"prompt_tokens":7,"completion_tokens":3,"total_tokens":10}}',
      '[DONE]'].map((d) => `data: ${d}\n\n`).join('');
    const { fetch, calls } = fakeFetch(() => new Response(sse, { status: 200, headers: { 'content-type': 'text/event-stream' } }));
    let t = 0;
    const clock = { now: () => (t += 5), isoNow: () => '2026-01-01T00:00:00.000Z' };
    const pool = new OpenAIPoolModel({ endpoints: [ep('a:1')], stream: true }, { fetch, env: {}, clock });
    const out = await pool.complete(req());
    expect(calls[0]!.body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
    expect(out.text).toBe('Answer: 5');
    expect(out.reasoning).toBe('hmm');
    expect(out.usage).toEqual({ promptTokens: 7, completionTokens: 3 });
    expect(out.timing.ttftMs).toBeGreaterThan(0);
    expect(out.timing.ttftMs).toBeLessThan(out.timing.totalMs);
  });

  it('uses the seeded rng for backoff jitter: same seed, same waits', async () => {
    const run = async (seed: string) => {
      const { fetch } = fakeFetch(() => apiError(503, 'busy'));
      const { sleep, waits } = recordingSleep();
      const pool = new OpenAIPoolModel({ endpoints: [ep('a:1')], retries: 3, health: { failureThreshold: 100, cooldownMs: 10 } }, { fetch, env: {}, sleep, rng: createRng(seed) });
      await pool.complete(req()).catch(() => {});
      return waits;
    };
    const a = await run('x');
    expect(a).toHaveLength(3);
    expect(await run('x')).toEqual(a);
    expect(await run('y')).not.toEqual(a);
    // Equal jitter around 500, 1000, 2000 ms.
    a.forEach((w, i) => { const cap = 500 * 2 ** i; expect(w).toBeGreaterThanOrEqual(cap / 2); expect(w).toBeLessThanOrEqual(cap); });
  });
});
