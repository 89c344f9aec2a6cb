import { describe, expect, it } from 'vitest';
import { AccountingModel } from '../../../src/llm/token-accounting';
import { OpenAIPoolModel } from '../../../src/llm/openai/openai-pool-model';
import { readServerUsage } from '../../../src/llm/openai/chat-attempt';
import { chat, fakeFetch, json, recordingSleep } from './fake-fetch';

const req = { messages: [{ role: 'user' as const, content: 'What is 2 + 2?' }], stage: 'solve' as const, taskId: 't-1' };
const ep = { baseURL: 'http://a:1/v1', model: 'm', maxConcurrency: 4 };
/** A real-format vLLM chat completion with the given message content and usage. */
const reply = (content: unknown, usage: unknown) =>
  json(200, { id: 'chatcmpl-1', object: 'chat.completion', created: 1700000000, model: 'Qwen/Qwen3-8B', choices: [{ index: 0, message: { role: 'assistant', content, tool_calls: [] }, logprobs: null, finish_reason: 'stop' }], usage });

describe('server replies: usage fields', () => {
  it('accepts non-negative integer counts, and says nothing is wrong', () => {
    expect(readServerUsage({ prompt_tokens: 12, completion_tokens: 0, total_tokens: 12, completion_tokens_details: { reasoning_tokens: 0 } })).toEqual({ prompt: 12, completion: 0, reasoning: 0 });
    expect(readServerUsage(undefined)).toEqual({});
  });

  it.each([
    ['a negative count', { prompt_tokens: -5, completion_tokens: 3 }],
    ['a string count', { prompt_tokens: 7, completion_tokens: 'lots' }],
    ['a fractional count', { prompt_tokens: 1.5, completion_tokens: 3 }],
    ['a bad reasoning count', { prompt_tokens: 1, completion_tokens: 3, completion_tokens_details: { reasoning_tokens: -1 } }],
    ['a usage that is not an object', 'lots'],
  ])('treats %s as unknown usage: estimated numbers, flagged, totals stay numbers', async (_what, usage) => {
    const { fetch } = fakeFetch(() => reply('4', usage));
    const model = new AccountingModel(new OpenAIPoolModel({ endpoints: [ep] }, { fetch, env: {}, sleep: recordingSleep().sleep }));
    const out = await model.complete(req);
    expect(out.text).toBe('4');
    expect(out.usage.unknown).toMatch(/invalid usage|usage is/);
    expect(Number.isSafeInteger(out.usage.promptTokens) && out.usage.promptTokens >= 0).toBe(true);
    expect(Number.isSafeInteger(out.usage.completionTokens) && out.usage.completionTokens >= 0).toBe(true);
    await model.complete(req);
    const total = model.report().total;
    expect(typeof total.promptTokens).toBe('number');
    expect(typeof total.completionTokens).toBe('number');
    expect(total.unknownUsage).toBe(2);
  });
});

describe('server replies: content', () => {
  it('retries a reply with content: null instead of taking it as an empty answer', async () => {
    const replies = [reply(null, { prompt_tokens: 5, completion_tokens: 0 }), chat('4')];
    const { fetch, calls } = fakeFetch(() => replies.shift()!);
    const pool = new OpenAIPoolModel({ endpoints: [ep], retries: 2 }, { fetch, env: {}, sleep: recordingSleep().sleep });
    const out = await pool.complete(req);
    expect(out.text).toBe('4');
    expect(out.usage.unknown).toBeUndefined();
    expect(calls).toHaveLength(2);
  });

  it('fails the request when every attempt has content: null', async () => {
    const { fetch } = fakeFetch(() => reply(null, undefined));
    const pool = new OpenAIPoolModel({ endpoints: [ep], retries: 1 }, { fetch, env: {}, sleep: recordingSleep().sleep });
    await expect(pool.complete(req)).rejects.toThrow(/content: null/);
  });

  it('keeps an empty string as an empty answer', async () => {
    const { fetch } = fakeFetch(() => reply('', { prompt_tokens: 5, completion_tokens: 0 }));
    const pool = new OpenAIPoolModel({ endpoints: [ep] }, { fetch, env: {}, sleep: recordingSleep().sleep });
    expect((await pool.complete(req)).text).toBe('');
  });
});

/** A body as Python's json.dumps writes it by default: bare NaN / Infinity tokens. */
const rawJson = (text: string) => new Response(text, { status: 200, headers: { 'content-type': 'application/json' } });
const pythonReply = (usage: string) =>
  rawJson(`{"id":"c","object":"chat.completion","created":0,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"NaN is not 4, Infinity neither: 4"},"finish_reason":"stop"}],"usage":${usage}}`);

describe('server replies: bare NaN and Infinity tokens', () => {
  it.each([
    ['NaN', '{"prompt_tokens":NaN,"completion_tokens":3}'],
    ['Infinity', '{"prompt_tokens":7,"completion_tokens":Infinity}'],
    ['-Infinity', '{"prompt_tokens":-Infinity,"completion_tokens":3}'],
  ])('parses a reply with a bare %s and treats its usage as unknown, keeping the answer', async (_what, usage) => {
    const { fetch, calls } = fakeFetch(() => pythonReply(usage));
    const model = new AccountingModel(new OpenAIPoolModel({ endpoints: [ep] }, { fetch, env: {}, sleep: recordingSleep().sleep }));
    const out = await model.complete(req);
    expect(out.text).toBe('NaN is not 4, Infinity neither: 4');
    expect(out.usage.unknown).toMatch(/invalid usage/);
    expect(calls).toHaveLength(1);
    expect(model.report().total.unknownUsage).toBe(1);
  });

  it('parses a streamed reply whose usage chunk holds a bare NaN', async () => {
    const sse = [
      'data: {"id":"c","object":"chat.completion.chunk","created":0,"model":"m","choices":[{"index":0,"delta":{"content":"4"}}]}',
      'data: {"id":"c","object":"chat.completion.chunk","created":0,"model":"m","choices":[],"usage":{"prompt_tokens":NaN,"completion_tokens":1}}',
      'data: [DONE]', '', ''].join('\n\n');
    const { fetch } = fakeFetch(() => new Response(sse, { status: 200, headers: { 'content-type': 'text/event-stream' } }));
    const pool = new OpenAIPoolModel({ endpoints: [ep], stream: true }, { fetch, env: {}, sleep: recordingSleep().sleep });
    const out = await pool.complete(req);
    expect(out.text).toBe('4');
    expect(out.usage.unknown).toMatch(/invalid usage/);
  });

  it('leaves strings that spell NaN or Infinity alone', async () => {
    const { quoteBareNonFinite } = await import('../../../src/llm/openai/tolerant-fetch');
    const body = '{"a":"NaN","b":"x \\" Infinity","c":NaN,"d":[-Infinity,1,Infinity]}';
    expect(JSON.parse(quoteBareNonFinite(body))).toEqual({ a: 'NaN', b: 'x " Infinity', c: 'NaN', d: ['-Infinity', 1, 'Infinity'] });
    expect(quoteBareNonFinite('{"a":1}')).toBe('{"a":1}');
  });
});

describe('server replies: usage beyond what the request could produce', () => {
  it.each([
    ['2^53 − 1 completion tokens', { prompt_tokens: 10, completion_tokens: Number.MAX_SAFE_INTEGER }, {}],
    ['more completion tokens than max_tokens', { prompt_tokens: 10, completion_tokens: 500 }, { maxTokens: 64 }],
    ['more prompt tokens than the prompt has bytes', { prompt_tokens: 1_000_000, completion_tokens: 5 }, {}],
    ['more reasoning tokens than completion tokens', { prompt_tokens: 10, completion_tokens: 5, completion_tokens_details: { reasoning_tokens: 9 } }, {}],
  ])('treats %s as unknown usage, logged, and keeps the run totals sane', async (_what, usage, extra) => {
    const { fetch } = fakeFetch(() => reply('4', usage));
    const model = new AccountingModel(new OpenAIPoolModel({ endpoints: [ep] }, { fetch, env: {}, sleep: recordingSleep().sleep }));
    const out = await model.complete({ ...req, ...extra });
    expect(out.text).toBe('4');
    expect(out.usage.unknown).toMatch(/beyond what the request could produce/);
    expect(out.usage.completionTokens).toBeLessThan(100);
    expect(model.report().total.completionTokens).toBeLessThan(100);
  });

  it('keeps counts that a request could produce', async () => {
    const { fetch } = fakeFetch(() => reply('4', { prompt_tokens: 30, completion_tokens: 64 }));
    const pool = new OpenAIPoolModel({ endpoints: [ep] }, { fetch, env: {}, sleep: recordingSleep().sleep });
    const out = await pool.complete({ ...req, maxTokens: 64 });
    expect(out.usage).toEqual({ promptTokens: 30, completionTokens: 64 });
  });
});
