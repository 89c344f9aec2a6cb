import type { IncomingMessage, ServerResponse } from 'node:http';

/** The `owned_by` of the model ids serve-sim lists; clients recognise a simulator by it. */
export { SERVE_SIM_OWNER } from '../../llm/openai/simulator-owner';

/** An error to answer in OpenAI's shape: `{error: {message, type, param, code}}`. */
export class WireError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly type = 'invalid_request_error',
    readonly code: string | null = null,
    readonly param: string | null = null,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'WireError';
  }
}

/** Write a JSON answer (unless the client already went away). */
export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.destroyed || res.headersSent) return;
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

/** Write an OpenAI-shaped error answer. */
export function sendError(res: ServerResponse, e: WireError): void {
  sendJson(res, e.status, { error: { message: e.message, type: e.type, param: e.param, code: e.code } }, e.headers);
}

/** Read a request body as text; a WireError(413) past `limitBytes`. */
export async function readBody(req: IncomingMessage, limitBytes = 32 * 1024 * 1024): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limitBytes) throw new WireError(413, `request body larger than ${limitBytes} bytes`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Parse a JSON request body; a WireError(400) for a body that is not a JSON object. */
export function parseJsonObject(text: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new WireError(400, `malformed JSON body: ${(err as Error).message}`);
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new WireError(400, 'request body must be a JSON object');
  return parsed as Record<string, unknown>;
}

/** Start a server-sent-events answer. */
export function startSse(res: ServerResponse, headers: Record<string, string> = {}): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive', ...headers });
  res.flushHeaders();
}

/** Write one SSE `data:` event. */
export function writeSse(res: ServerResponse, data: unknown): void {
  if (!res.destroyed) res.write(`data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`);
}

/** OpenAI's token usage object. */
export interface WireUsage {
  readonly prompt_tokens: number;
  readonly completion_tokens: number;
  readonly total_tokens: number;
}

/** Usage in the wire shape (as vLLM sends it: the working's tokens are in `completion_tokens`, not broken out). */
export function wireUsage(promptTokens: number, completionTokens: number): WireUsage {
  return { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens };
}

/** Fields every chat completion object and chunk carries. */
export interface ChatIdentity {
  readonly id: string;
  readonly created: number;
  readonly model: string;
}

/** A whole (non-streamed) chat completion; the working, when there is some, in `reasoning_content` (vLLM's field). */
export function chatCompletion(idn: ChatIdentity, text: string, finishReason: string, usage: WireUsage, reasoning = ''): unknown {
  return {
    id: idn.id, object: 'chat.completion', created: idn.created, model: idn.model,
    choices: [{ index: 0, message: { role: 'assistant', content: text, ...(reasoning ? { reasoning_content: reasoning } : {}) }, logprobs: null, finish_reason: finishReason }],
    usage,
  };
}

/** One streamed chunk; `delta` null with usage makes the final usage-only chunk (`choices: []`). */
export function chatChunk(
  idn: ChatIdentity, delta: Record<string, string> | null, finishReason: string | null, usage?: WireUsage | null,
): unknown {
  return {
    id: idn.id, object: 'chat.completion.chunk', created: idn.created, model: idn.model,
    choices: delta ? [{ index: 0, delta, logprobs: null, finish_reason: finishReason }] : [],
    ...(usage !== undefined ? { usage } : {}),
  };
}
