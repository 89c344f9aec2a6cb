import type { ChatMessage } from '../../llm/model';
import { parseMessages } from './chat-handler';
import { WireError } from './openai-wire';
import { serveGeneration, type Generation, type GenerationWire } from './generation';
import type { RouteHandler } from './sim-server-context';

/** The conversation of a Responses request: `instructions` as the system message, `input` as text or messages. */
function readInput(body: Record<string, unknown>): ChatMessage[] {
  const system: ChatMessage[] = typeof body.instructions === 'string' && body.instructions ? [{ role: 'system', content: body.instructions }] : [];
  const input = body.input;
  if (typeof input === 'string' && input.length > 0) return [...system, { role: 'user', content: input }];
  if (Array.isArray(input) && input.length > 0) {
    // Message items only (`{role, content}`, content a string or `input_text` parts); tools are not modelled.
    const items = input.filter((i) => !(i && typeof i === 'object' && 'type' in i && (i as { type: unknown }).type !== 'message'));
    if (items.length !== input.length) throw new WireError(400, "serve-sim's /v1/responses takes text or message items in 'input' (no tool calls)", 'invalid_request_error', null, 'input');
    return [...system, ...parseMessages({ input: items }, 'input')];
  }
  throw new WireError(400, "'input' must be a non-empty string or array of messages", 'invalid_request_error', null, 'input');
}

const usage = (g: Generation) => ({
  input_tokens: g.promptTokens, input_tokens_details: { cached_tokens: 0 },
  output_tokens: g.completionTokens, output_tokens_details: { reasoning_tokens: g.reasoningTokens },
  total_tokens: g.promptTokens + g.completionTokens,
});

/**
 * `POST /v1/responses`, a minimal one (what vLLM serves for text): text or messages in; a
 * reasoning item holding the working and a message with the answer as `output_text` out, with
 * usage; streamed as `response.created`, `response.output_item.added`, `response.output_text.delta`,
 * `response.output_item.done` and `response.completed` (or `response.incomplete` at `max_output_tokens`).
 * No tools, no stored state (`previous_response_id` is refused).
 */
export const responsesHandler: RouteHandler = async (ctx, req, res, body) => {
  if (body.previous_response_id !== undefined && body.previous_response_id !== null) {
    throw new WireError(400, 'serve-sim stores no responses: send the whole conversation in \'input\'', 'invalid_request_error', null, 'previous_response_id');
  }
  const messages = readInput(body);
  await serveGeneration(ctx, req, res, body, messages, (model): GenerationWire => {
    const id = ctx.nextId('resp');
    const created = ctx.created();
    const msgId = `msg_${id}`;
    const rsId = `rs_${id}`;
    let seq = 0;
    let reasoningOpen = false;
    let messageOpen = false;
    const ev = (type: string, fields: Record<string, unknown>) => ({ event: type, data: { type, sequence_number: seq++, ...fields } });
    const reasoningItem = (text: string) => ({ type: 'reasoning', id: rsId, summary: [], content: [{ type: 'reasoning_text', text }], encrypted_content: null });
    const messageItem = (text: string, status: string) => ({
      type: 'message', id: msgId, role: 'assistant', status, content: [{ type: 'output_text', text, annotations: [], logprobs: [] }],
    });
    const response = (g: Generation | null, status: string) => ({
      id, object: 'response', created_at: created, model, status,
      incomplete_details: g?.finish === 'length' ? { reason: 'max_output_tokens' } : null,
      output: g ? [...(g.reasoning ? [reasoningItem(g.reasoning)] : []), messageItem(g.answer, 'completed')] : [],
      ...(g ? { output_text: g.answer, usage: usage(g) } : {}),
    });
    let answerSoFar = '';
    const openMessage = () => {
      if (messageOpen) return [];
      messageOpen = true;
      const index = reasoningOpen ? 1 : 0;
      return [
        ev('response.output_item.added', { output_index: index, item: { ...messageItem('', 'in_progress'), content: [] } }),
        ev('response.content_part.added', { item_id: msgId, output_index: index, content_index: 0, part: { type: 'output_text', text: '', annotations: [] } }),
      ];
    };
    return {
      whole: (g) => response(g, g.finish === 'length' ? 'incomplete' : 'completed'),
      start: () => [ev('response.created', { response: response(null, 'in_progress') }), ev('response.in_progress', { response: response(null, 'in_progress') })],
      delta: (kind, text) => {
        if (kind === 'reasoning') {
          const open = reasoningOpen ? [] : [ev('response.output_item.added', { output_index: 0, item: { ...reasoningItem(''), content: [] } })];
          reasoningOpen = true;
          return [...open, ev('response.reasoning_text.delta', { item_id: rsId, output_index: 0, content_index: 0, delta: text })];
        }
        answerSoFar += text;
        return [...openMessage(), ev('response.output_text.delta', { item_id: msgId, output_index: reasoningOpen ? 1 : 0, content_index: 0, delta: text, logprobs: [] })];
      },
      end: (g) => {
        const index = reasoningOpen ? 1 : 0;
        return [
          ...(reasoningOpen ? [ev('response.output_item.done', { output_index: 0, item: reasoningItem(g.reasoning) })] : []),
          ...openMessage(),
          ev('response.output_text.done', { item_id: msgId, output_index: index, content_index: 0, text: answerSoFar, logprobs: [] }),
          ev('response.output_item.done', { output_index: index, item: messageItem(g.answer, 'completed') }),
          ev(g.finish === 'length' ? 'response.incomplete' : 'response.completed', { response: response(g, g.finish === 'length' ? 'incomplete' : 'completed') }),
        ];
      },
    };
  });
};
