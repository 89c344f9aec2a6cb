import type { ChatMessage } from '../../llm/model';
import { chatChunk, chatCompletion, wireUsage, WireError } from './openai-wire';
import { serveGeneration, type GenerationWire } from './generation';
import type { RouteHandler } from './sim-server-context';

/** Chat messages from a request body: string content or an array of text parts; `developer` counts as system. */
export function parseMessages(body: Record<string, unknown>, field = 'messages'): ChatMessage[] {
  const raw = body[field];
  if (!Array.isArray(raw) || raw.length === 0) throw new WireError(400, `'${field}' must be a non-empty array`, 'invalid_request_error', null, field);
  return raw.map((m, i) => {
    const msg = m as { role?: unknown; content?: unknown };
    if (!msg || typeof msg.role !== 'string') throw new WireError(400, `'${field}[${i}].role' is required`, 'invalid_request_error', null, `${field}[${i}].role`);
    let content: string;
    if (typeof msg.content === 'string') content = msg.content;
    else if (Array.isArray(msg.content)) content = msg.content.map((p) => (p && typeof p === 'object' && typeof (p as { text?: unknown }).text === 'string' ? (p as { text: string }).text : '')).join('');
    else if (msg.content === null || msg.content === undefined) content = '';
    else throw new WireError(400, `'${field}[${i}].content' must be a string or an array of parts`, 'invalid_request_error', null, `${field}[${i}].content`);
    const role = msg.role === 'system' || msg.role === 'developer' ? 'system' : msg.role === 'assistant' ? 'assistant' : 'user';
    return { role, content };
  });
}

/**
 * `POST /v1/chat/completions`: the answer in `content`, the working before it in
 * `reasoning_content` (as vLLM's reasoning parser splits them); streamed as chunks at the decode
 * pace, with a usage chunk last when `stream_options.include_usage` asks for it.
 */
export const chatHandler: RouteHandler = async (ctx, req, res, body) => {
  const messages = parseMessages(body);
  const includeUsage = body.stream === true && (body.stream_options as { include_usage?: unknown } | undefined)?.include_usage === true;
  const u = includeUsage ? null : undefined;
  await serveGeneration(ctx, req, res, body, messages, (model): GenerationWire => {
    const idn = { id: ctx.nextId('chatcmpl'), created: ctx.created(), model };
    return {
      whole: (g) => chatCompletion(idn, g.answer, g.finish, wireUsage(g.promptTokens, g.completionTokens), g.reasoning),
      start: () => [{ data: chatChunk(idn, { role: 'assistant', content: '' }, null, u) }],
      delta: (kind, text) => [{ data: chatChunk(idn, kind === 'answer' ? { content: text } : { reasoning_content: text }, null, u) }],
      end: (g) => [
        { data: chatChunk(idn, {}, g.finish, u) },
        ...(includeUsage ? [{ data: chatChunk(idn, null, null, wireUsage(g.promptTokens, g.completionTokens)) }] : []),
        { data: '[DONE]' },
      ],
    };
  });
};
