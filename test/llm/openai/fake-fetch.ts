/** A recorded request to a fake OpenAI-compatible server. */
export interface FakeCall {
  readonly host: string;
  readonly path: string;
  readonly method: string;
  readonly headers: Record<string, string>;
  readonly body: Record<string, unknown> | undefined;
}

/** What a fake handler returns: a response, or 'hang' to never answer (until the request aborts). */
export type FakeReply = Response | 'hang';

/** Build a JSON response. */
export const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });

/** A chat completion body with the given text (and extra message fields, e.g. reasoning_content). */
export const chat = (text: string, extra: Record<string, unknown> = {}, usage = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 }) =>
  json(200, { id: 'c', object: 'chat.completion', created: 0, model: 'm', choices: [{ index: 0, message: { role: 'assistant', content: text, ...extra }, finish_reason: 'stop' }], usage });

/** An OpenAI-shaped error. */
export const apiError = (status: number, message: string, headers: Record<string, string> = {}) =>
  json(status, { error: { message, type: 'x', param: null, code: null } }, headers);

/**
 * A recording fake `fetch` serving any number of fake hosts: `handler(call)` decides each reply.
 * Hung requests reject when their signal aborts, like a real fetch.
 */
export function fakeFetch(handler: (call: FakeCall, n: number) => FakeReply | Promise<FakeReply>) {
  const calls: FakeCall[] = [];
  const fetchImpl = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const url = new URL(typeof input === 'string' || input instanceof URL ? input.toString() : input.url);
    const headers: Record<string, string> = {};
    new Headers(init?.headers).forEach((v, k) => { headers[k] = v; });
    const text = typeof init?.body === 'string' ? init.body : undefined;
    const call: FakeCall = { host: url.host, path: url.pathname, method: init?.method ?? 'GET', headers, body: text ? JSON.parse(text) : undefined };
    calls.push(call);
    const reply = await handler(call, calls.length);
    if (reply !== 'hang') return reply;
    return new Promise<Response>((_, reject) => {
      const signal = init?.signal;
      if (signal?.aborted) reject(signal.reason);
      signal?.addEventListener('abort', () => reject(Object.assign(new Error('aborted'), { name: 'AbortError' })), { once: true });
    });
  };
  return { fetch: fetchImpl as typeof fetch, calls };
}

/** A sleep that records what it was asked to wait and returns at once. */
export function recordingSleep() {
  const waits: number[] = [];
  const sleep = async (ms: number) => { waits.push(ms); await new Promise((r) => setImmediate(r)); };
  return { sleep, waits };
}
