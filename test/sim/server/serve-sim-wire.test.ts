import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServeSim, type ServeSim } from '../../../src/sim/server/serve-sim';

/** A JSON response body, untyped (the test checks its shape). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const readJson = (r: Response): Promise<any> => r.json();

// A client other than the `openai` package: plain fetch and a hand-written SSE parser check the
// bytes on the wire, so serve-sim works with any OpenAI-compatible client, not just one library.
let sim: ServeSim;
beforeAll(async () => { sim = await startServeSim({ port: 0, timeScale: 200 }); });
afterAll(async () => { await sim.close(); });

const post = (path: string, body: unknown, raw?: string) => fetch(`${sim.url}${path}`, {
  method: 'POST', headers: { 'content-type': 'application/json' }, body: raw ?? JSON.stringify(body),
});

/** Parse an SSE body: one `data:` payload per event, events separated by a blank line. */
function parseSse(text: string): string[] {
  return text.split('\n\n').filter((e) => e.trim() !== '').map((e) => {
    const lines = e.split('\n');
    expect(lines.every((l) => l.startsWith('data: '))).toBe(true);
    return lines.map((l) => l.slice('data: '.length)).join('\n');
  });
}

describe('serve-sim wire format (plain fetch)', () => {
  it('streams `data: {json}` events ending in a usage-only chunk and `data: [DONE]`', async () => {
    const res = await post('/chat/completions', {
      model: 'sim', messages: [{ role: 'user', content: 'hi' }], max_tokens: 30, stream: true, stream_options: { include_usage: true },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const events = parseSse(await res.text());
    expect(events.at(-1)).toBe('[DONE]');
    const chunks = events.slice(0, -1).map((e) => JSON.parse(e));
    const ids = new Set(chunks.map((c) => c.id));
    expect(ids.size).toBe(1);
    for (const c of chunks) expect(c.object).toBe('chat.completion.chunk');
    expect(chunks[0].choices[0].delta.role).toBe('assistant');
    const usageChunk = chunks.at(-1);
    expect(usageChunk.choices).toEqual([]);
    expect(usageChunk.usage).toEqual({ prompt_tokens: expect.any(Number), completion_tokens: 30, total_tokens: usageChunk.usage.prompt_tokens + 30 });
    const finishes = chunks.flatMap((c) => c.choices.map((ch: { finish_reason: string | null }) => ch.finish_reason)).filter(Boolean);
    expect(finishes).toEqual(['length']);
    // Every chunk before the last one carries `usage: null` when usage was asked for.
    for (const c of chunks.slice(0, -1)) expect(c.usage).toBeNull();
  });

  it('streams without usage chunks when include_usage is not set', async () => {
    const res = await post('/chat/completions', { model: 'sim', messages: [{ role: 'user', content: 'hi' }], max_tokens: 10, stream: true });
    const events = parseSse(await res.text());
    const chunks = events.slice(0, -1).map((e) => JSON.parse(e));
    expect(chunks.every((c) => c.choices.length === 1 && !('usage' in c))).toBe(true);
  });

  it('encodes base64 embeddings as little-endian float32 matching the float form', async () => {
    const f = await readJson(await post('/embeddings', { model: 'sim', input: 'hello world', encoding_format: 'float' }));
    const b = await readJson(await post('/embeddings', { model: 'sim', input: 'hello world', encoding_format: 'base64' }));
    const bytes = Buffer.from(b.data[0].embedding, 'base64');
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const decoded = Array.from({ length: bytes.length / 4 }, (_, i) => view.getFloat32(i * 4, true));
    expect(decoded.length).toBe(f.data[0].embedding.length);
    decoded.forEach((x, i) => expect(x).toBeCloseTo(f.data[0].embedding[i], 6));
    expect(f.object).toBe('list');
    expect(f.data[0]).toMatchObject({ object: 'embedding', index: 0 });
  });

  it('answers malformed bodies with 400 and unknown routes with 404, in the OpenAI error shape', async () => {
    const bad = await post('/chat/completions', null, '{"model": "sim", "messages": [');
    expect(bad.status).toBe(400);
    const badBody = await readJson(bad);
    expect(Object.keys(badBody.error).sort()).toEqual(['code', 'message', 'param', 'type']);
    expect(badBody.error.type).toBe('invalid_request_error');
    const missing = await post('/chat/completions', { model: 'sim' });
    expect(missing.status).toBe(400);
    expect((await readJson(missing)).error.param).toBe('messages');
    const unknown = await fetch(`${sim.url}/nothing-here`);
    expect(unknown.status).toBe(404);
    expect((await readJson(unknown)).error).toMatchObject({ code: 'unknown_url', type: 'invalid_request_error' });
    const models = await readJson(await fetch(`${sim.url}/models`));
    expect(models).toMatchObject({ object: 'list', data: [{ id: 'sim', object: 'model', owned_by: 'evochamber-sim' }] });
  });

  it('answers the same request the same way (seed key header, else body seed)', async () => {
    const body = { model: 'sim', messages: [{ role: 'user', content: 'same question' }], max_tokens: 50 };
    const withKey = (key: string) => fetch(`${sim.url}/chat/completions`, {
      method: 'POST', headers: { 'content-type': 'application/json', 'x-evochamber-seed-key': key }, body: JSON.stringify(body),
    }).then(readJson);
    const [a, b] = await Promise.all([withKey('k/1'), withKey('k/1')]);
    expect(a.choices[0].message.content).toBe(b.choices[0].message.content);
    expect(a.usage).toEqual(b.usage);
    const [c, d] = await Promise.all([post('/chat/completions', { ...body, seed: 5 }), post('/chat/completions', { ...body, seed: 5 })].map((p) => p.then(readJson)));
    expect(c.usage).toEqual(d.usage);
  });
});
