import { describe, expect, it } from 'vitest';
import { OpenAIPoolModel, ModelRequestError } from '../../../src/llm/openai/openai-pool-model';
import { apiError, chat, fakeFetch, json, recordingSleep } from './fake-fetch';

const req = { messages: [{ role: 'user' as const, content: 'q' }], stage: 'solve' as const, taskId: 't-1' };
const ep = (host: string, over: Record<string, unknown> = {}) => ({ baseURL: `http://${host}/v1`, model: 'm', maxConcurrency: 4, ...over });
const SECRET = 'sk-test-4f9c2a7e1b3d5f60a8c9e2d4b6f8a0c2';

describe('OpenAI pool: retries and failures', () => {
  it('honours retry-after-ms, then retry-after, before falling back to backoff', async () => {
    const replies = [
      apiError(429, 'slow down', { 'retry-after-ms': '1234', 'retry-after': '9' }),
      apiError(429, 'slow down', { 'retry-after': '2' }),
      apiError(503, 'busy'),
      chat('ok'),
    ];
    const { fetch } = fakeFetch(() => replies.shift()!);
    const { sleep, waits } = recordingSleep();
    const pool = new OpenAIPoolModel({ endpoints: [ep('a:1')], retries: 5 }, { fetch, env: {}, sleep });
    expect((await pool.complete(req)).text).toBe('ok');
    expect(waits.slice(0, 2)).toEqual([1234, 2000]);
    expect(waits[2]).toBeGreaterThanOrEqual(500);
    const s = pool.stats()['m@a:1/v1']!;
    expect(s).toMatchObject({ requests: 4, retries: 3, failures: 3, rateLimited: 2 });
  });

  it('routes the retry to another endpoint', async () => {
    const { fetch, calls } = fakeFetch((c) => (c.host === 'a:1' ? apiError(500, 'boom') : chat('from b')));
    const { sleep } = recordingSleep();
    const pool = new OpenAIPoolModel({ endpoints: [ep('a:1'), ep('b:1')] }, { fetch, env: {}, sleep });
    expect((await pool.complete(req)).text).toBe('from b');
    expect(calls.map((c) => c.host)).toEqual(['a:1', 'b:1']);
    expect(pool.usage()).toEqual({
      'm@a:1/v1': { requests: 1, retries: 0, failures: 1, aborted: 0, promptTokens: 0, completionTokens: 0 },
      'm@b:1/v1': { requests: 1, retries: 1, failures: 0, aborted: 0, promptTokens: 10, completionTokens: 5 },
    });
  });

  it('does not retry a request the server rejects as malformed', async () => {
    const { fetch, calls } = fakeFetch(() => apiError(400, 'bad request'));
    const pool = new OpenAIPoolModel({ endpoints: [ep('a:1')], retries: 5 }, { fetch, env: {}, sleep: recordingSleep().sleep });
    await expect(pool.complete(req)).rejects.toThrow(/failed \(400, not retryable\).*task t-1.*bad request/);
    expect(calls).toHaveLength(1);
  });

  it('fails a known refusal at its first attempt, and leaves the endpoint healthy for other requests', async () => {
    const { fetch, calls } = fakeFetch((c) => {
      if (c.path.endsWith('/models')) return json(200, { object: 'list', data: [{ id: 'm', object: 'model', created: 0, owned_by: 'x' }] });
      return JSON.stringify(c.body).includes('refused kind') ? apiError(503, 'no') : chat('ok');
    });
    const pool = new OpenAIPoolModel({ endpoints: [ep('a:1')], retries: 4, health: { failureThreshold: 2, cooldownMs: 10 } }, { fetch, env: {}, sleep: recordingSleep().sleep });
    const refused = { ...req, messages: [{ role: 'user' as const, content: 'refused kind' }], knownRefusals: [503] };
    for (let i = 0; i < 5; i++) {
      await expect(pool.complete(refused)).rejects.toThrow(/failed \(503, a known refusal of this kind of request, not retried\).*task t-1/);
    }
    expect(calls).toHaveLength(5);
    expect(pool.stats()['m@a:1/v1']).toMatchObject({ healthy: true, failures: 5, retries: 0 });
    expect((await pool.complete(req)).text).toBe('ok');
    // Another status is no known refusal: retried, and held against the endpoint, once per request.
    calls.length = 0;
    await expect(pool.complete({ ...refused, knownRefusals: [400] })).rejects.toThrow(/failed after 5 attempts/);
    expect(calls.filter((c) => c.path.endsWith('/chat/completions'))).toHaveLength(5);
    expect(pool.stats()['m@a:1/v1']).toMatchObject({ healthy: true, takenOut: 0 });
    // A second request refused in a row makes two: the endpoint is taken out.
    await expect(pool.complete({ ...refused, knownRefusals: [400] })).rejects.toThrow(/failed after/);
    expect(pool.stats()['m@a:1/v1']!.takenOut).toBeGreaterThan(0);
    await pool.close();
  });

  it('rejects with a clear error once every attempt is spent', async () => {
    const { fetch, calls } = fakeFetch(() => apiError(502, 'bad gateway'));
    const pool = new OpenAIPoolModel({ endpoints: [ep('a:1')], retries: 2, health: { failureThreshold: 50, cooldownMs: 10 } }, { fetch, env: {}, sleep: recordingSleep().sleep });
    const err = await pool.complete(req).catch((e: unknown) => e) as ModelRequestError;
    expect(err).toBeInstanceOf(ModelRequestError);
    expect(err.message).toBe('openai backend: request failed after 3 attempts (task t-1, stage solve); last error server on m@a:1/v1: 502 bad gateway');
    expect(calls).toHaveLength(3);
  });

  it('times out hung requests and retries them', async () => {
    let n = 0;
    const { fetch } = fakeFetch(() => (n++ === 0 ? 'hang' : chat('late but fine')));
    const pool = new OpenAIPoolModel({ endpoints: [ep('a:1')], timeoutMs: 100 }, { fetch, env: {}, sleep: recordingSleep().sleep });
    expect((await pool.complete(req)).text).toBe('late but fine');
    expect(pool.stats()['m@a:1/v1']).toMatchObject({ timeouts: 1, failures: 1, retries: 1 });
  });

  it('takes an endpoint out after repeated failures and probes it back in with GET /models', async () => {
    let aDown = true;
    const { fetch, calls } = fakeFetch((c) => {
      if (c.host === 'b:1') return chat('b');
      if (c.path.endsWith('/models')) return aDown ? apiError(503, 'still down') : json(200, { object: 'list', data: [{ id: 'm', object: 'model', created: 0, owned_by: 'x' }] });
      return aDown ? apiError(500, 'down') : chat('a');
    });
    const { sleep } = recordingSleep();
    const pool = new OpenAIPoolModel({ endpoints: [ep('a:1'), ep('b:1', { maxConcurrency: 1 })], health: { failureThreshold: 2, cooldownMs: 50 } }, { fetch, env: {}, sleep });
    for (let i = 0; i < 4; i++) await pool.complete(req);
    expect(pool.stats()['m@a:1/v1']).toMatchObject({ healthy: false, takenOut: 1 });
    const chatCallsToA = () => calls.filter((c) => c.host === 'a:1' && c.path.endsWith('/chat/completions')).length;
    const before = chatCallsToA();
    await pool.complete(req);
    expect(chatCallsToA()).toBe(before);
    aDown = false;
    for (let i = 0; i < 50 && !pool.stats()['m@a:1/v1']!.healthy; i++) await new Promise((r) => setTimeout(r, 5));
    expect(pool.stats()['m@a:1/v1']!.healthy).toBe(true);
    expect(calls.some((c) => c.host === 'a:1' && c.method === 'GET' && c.path === '/v1/models')).toBe(true);
    expect((await pool.complete(req)).text).toBe('a');
    await pool.close();
  });

  it('never lets the key into an error message, a stat or an endpoint name', async () => {
    const { fetch, calls } = fakeFetch(() => apiError(401, `Incorrect API key provided: ${SECRET}. You can find your key at …`));
    const pool = new OpenAIPoolModel({ endpoints: [ep('a:1', { apiKeyEnv: 'EVO_TEST_KEY' })] }, { fetch, env: { EVO_TEST_KEY: SECRET } });
    const err = await pool.complete(req).catch((e: unknown) => e) as Error;
    expect(calls[0]!.headers.authorization).toBe(`Bearer ${SECRET}`);
    expect(err.message).toMatch(/401 Incorrect API key provided: \*\*\*/);
    expect(err.message).not.toContain(SECRET.slice(-8));
    expect(JSON.stringify(pool.stats())).not.toContain(SECRET.slice(-8));
    const noKey = fakeFetch(() => chat('ok'));
    await new OpenAIPoolModel({ endpoints: [ep('a:1')] }, { fetch: noKey.fetch, env: {} }).complete(req);
    expect(noKey.calls[0]!.headers.authorization).toBe('Bearer EMPTY');
  });
});
