import OpenAI from 'openai';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { embedMany, generateText, streamText } from 'ai';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServeSim, type ServeSim } from '../../../src/sim/server/serve-sim';

// serve-sim against the clients people point at vLLM: the openai package, the AI SDK's
// OpenAI-compatible provider, and the AI SDK's default OpenAI provider (which speaks /v1/responses).
let sim: ServeSim;
let client: OpenAI;
beforeAll(async () => {
  sim = await startServeSim({ port: 0, timeScale: 5000, faults: 'error=0' });
  client = new OpenAI({ baseURL: sim.url, apiKey: 'none', maxRetries: 0 });
});
afterAll(async () => { await sim.close(); });

const ask = 'Solve: what is 17 + 25? Put the final answer in \\boxed{}.';
/** Tokens of a text at serve-sim's 4 characters a token. */
const tokens = (s: string) => Math.ceil(s.length / 4);

describe('the openai client', () => {
  it('chat: an ended answer is "stop", and the billed tokens are the tokens sent', async () => {
    const r = await client.chat.completions.create({ model: 'sim', messages: [{ role: 'user', content: ask }] });
    const msg = r.choices[0]!.message as { content: string; reasoning_content?: string };
    expect(r.choices[0]!.finish_reason).toBe('stop');
    expect(msg.content.length).toBeGreaterThan(0);
    expect(r.usage!.completion_tokens).toBe(tokens(msg.content) + tokens(msg.reasoning_content ?? ''));
    expect(r.usage!.total_tokens).toBe(r.usage!.prompt_tokens + r.usage!.completion_tokens);
  });

  it('chat: "length" only when generation reaches max_tokens, cut to exactly that many', async () => {
    const r = await client.chat.completions.create({ model: 'sim', messages: [{ role: 'user', content: ask }], max_tokens: 3 });
    expect(r.choices[0]!.finish_reason).toBe('length');
    expect(r.usage!.completion_tokens).toBe(3);
  });

  it('chat streaming with usage: the chunks add up to the answer, usage last', async () => {
    const stream = await client.chat.completions.create({ model: 'sim', messages: [{ role: 'user', content: ask }], stream: true, stream_options: { include_usage: true } });
    let content = '';
    let reasoning = '';
    let finish: string | null = null;
    let usage: OpenAI.CompletionUsage | undefined;
    for await (const c of stream) {
      const d = c.choices[0]?.delta as { content?: string; reasoning_content?: string } | undefined;
      content += d?.content ?? '';
      reasoning += d?.reasoning_content ?? '';
      finish = c.choices[0]?.finish_reason ?? finish;
      if (c.usage) usage = c.usage;
    }
    expect(finish).toBe('stop');
    expect(content.length).toBeGreaterThan(0);
    expect(usage!.completion_tokens).toBe(tokens(content) + tokens(reasoning));
  });

  it('an unknown model is 404 model_not_found, as vLLM answers', async () => {
    const err = await client.chat.completions.create({ model: 'Qwen/Qwen3-8B', messages: [{ role: 'user', content: ask }] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.NotFoundError);
    expect((err as InstanceType<typeof OpenAI.NotFoundError>).code).toBe('model_not_found');
  });

  it('completions: prompt in, text out with usage; streamed with usage too', async () => {
    const r = await client.completions.create({ model: 'sim', prompt: ask, max_tokens: 2000 });
    expect(r.object).toBe('text_completion');
    expect(r.choices[0]!.text).toMatch(/\S/);
    expect(r.choices[0]!.finish_reason).toBe('stop');
    expect(r.usage!.completion_tokens).toBeGreaterThan(0);
    const stream = await client.completions.create({ model: 'sim', prompt: ask, stream: true, stream_options: { include_usage: true } });
    let text = '';
    let usage: OpenAI.CompletionUsage | undefined;
    for await (const c of stream) {
      text += c.choices[0]?.text ?? '';
      if (c.usage) usage = c.usage;
    }
    expect(text).toMatch(/\S/);
    expect(usage!.completion_tokens).toBeGreaterThan(0);
  });

  it('responses: text or messages in, output_text and usage out; streamed events end in response.completed', async () => {
    const r = await client.responses.create({ model: 'sim', input: ask });
    expect(r.output_text).toMatch(/\S/);
    expect(r.usage!.output_tokens).toBeGreaterThan(0);
    const m = await client.responses.create({ model: 'sim', instructions: 'You are careful.', input: [{ role: 'user', content: ask }] });
    expect(m.output_text).toMatch(/\S/);
    const stream = await client.responses.create({ model: 'sim', input: ask, stream: true });
    let text = '';
    let done: OpenAI.Responses.Response | undefined;
    for await (const e of stream) {
      if (e.type === 'response.output_text.delta') text += e.delta;
      if (e.type === 'response.completed') done = e.response;
    }
    expect(text).toBe(done!.output_text);
    expect(done!.usage!.output_tokens).toBeGreaterThan(0);
  });

  it('embeddings and the model list with max_model_len', async () => {
    const e = await client.embeddings.create({ model: 'sim', input: ['one', 'two'] });
    expect(e.data).toHaveLength(2);
    const models = await client.models.list();
    expect(models.data.map((x) => [x.id, (x as { max_model_len?: number }).max_model_len])).toEqual([['sim', 40_960]]);
  });
});

describe('the AI SDK', () => {
  it('@ai-sdk/openai-compatible: generateText and streamText', async () => {
    const provider = createOpenAICompatible({ name: 'serve-sim', baseURL: sim.url, includeUsage: true });
    const g = await generateText({ model: provider('sim'), prompt: ask, maxRetries: 0 });
    expect(g.text).toMatch(/\S/);
    expect(g.finishReason).toBe('stop');
    expect(g.usage.outputTokens).toBeGreaterThan(0);
    const s = streamText({ model: provider('sim'), prompt: ask, maxRetries: 0 });
    let text = '';
    for await (const t of s.textStream) text += t;
    expect(text).toMatch(/\S/);
    expect((await s.usage).outputTokens).toBeGreaterThan(0);
  });

  it('the default openai(...) provider (the Responses API): generateText, streamText, embedMany', async () => {
    const openai = createOpenAI({ baseURL: sim.url, apiKey: 'none' });
    const g = await generateText({ model: openai('sim'), prompt: ask, maxRetries: 0 });
    expect(g.text).toMatch(/\S/);
    expect(g.finishReason).toBe('stop');
    expect(g.usage.outputTokens).toBeGreaterThan(0);
    const s = streamText({ model: openai('sim'), prompt: ask, maxRetries: 0 });
    let text = '';
    for await (const t of s.textStream) text += t;
    expect(text).toMatch(/\S/);
    expect(await s.finishReason).toBe('stop');
    expect((await s.usage).outputTokens).toBeGreaterThan(0);
    const e = await embedMany({ model: openai.embeddingModel('sim'), values: ['alpha', 'beta', 'gamma'], maxRetries: 0 });
    expect(e.embeddings).toHaveLength(3);
  });
});

describe('/metrics', () => {
  it('parses as Prometheus text and carries vLLM\'s names, histograms included', async () => {
    const text = await (await fetch(sim.url.replace(/\/v1$/, '/metrics'))).text();
    const families = parsePrometheusTextFormat(text);
    const by = new Map(families.map((f) => [f.name, f]));
    for (const name of ['vllm:num_requests_running', 'vllm:num_requests_waiting', 'vllm:kv_cache_usage_perc', 'vllm:num_preemptions_total',
      'vllm:prompt_tokens_total', 'vllm:generation_tokens_total', 'vllm:request_success_total']) expect(by.has(name), name).toBe(true);
    // This parser keeps a labelled histogram's buckets only (prom2json's flattening), so count and
    // sum are read from its +Inf bucket and from the text.
    const count = (name: string) => Number(by.get(name)!.metrics[0]!.buckets!['+Inf']);
    for (const name of ['vllm:time_to_first_token_seconds', 'vllm:e2e_request_latency_seconds', 'vllm:request_generation_tokens']) {
      expect(by.get(name)?.type, name).toBe('HISTOGRAM');
      // Every request the earlier tests finished is in each histogram (they ran first, in this file's order).
      expect(count(name), name).toBeGreaterThan(5);
      const buckets = Object.entries(by.get(name)!.metrics[0]!.buckets!).filter(([le]) => le !== '+Inf').map(([le, n]) => [Number(le), Number(n)] as const).sort((a, b) => a[0] - b[0]);
      for (let i = 1; i < buckets.length; i++) expect(buckets[i]![1]).toBeGreaterThanOrEqual(buckets[i - 1]![1]);
    }
    const sum = Number(/^vllm:request_generation_tokens_sum\{[^}]*\} (\S+)$/m.exec(text)![1]);
    expect(sum).toBe(Number(by.get('vllm:generation_tokens_total')!.metrics[0]!.value));
    const success = by.get('vllm:request_success_total')!.metrics;
    expect(Number(success.find((m) => m.labels?.finished_reason === 'length')!.value)).toBeGreaterThanOrEqual(1);
  });
});
