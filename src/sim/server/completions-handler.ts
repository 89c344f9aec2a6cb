import { WireError, wireUsage } from './openai-wire';
import { serveGeneration, type GenerationWire } from './generation';
import type { RouteHandler } from './sim-server-context';

/** The prompt of a legacy completion: one string (or a one-string array, as the openai client may send). */
function readPrompt(body: Record<string, unknown>): string {
  const p = body.prompt;
  if (typeof p === 'string' && p.length > 0) return p;
  if (Array.isArray(p) && p.length === 1 && typeof p[0] === 'string' && p[0].length > 0) return p[0];
  if (Array.isArray(p) && p.length > 1) throw new WireError(400, "serve-sim supports one prompt per request in 'prompt'", 'invalid_request_error', null, 'prompt');
  throw new WireError(400, "'prompt' must be a non-empty string", 'invalid_request_error', null, 'prompt');
}

/**
 * `POST /v1/completions` (vLLM's legacy endpoint): the prompt is read as one user message; the
 * text is the working in a `<think>` block and then the answer, as a reasoning model writes it
 * without a chat template's parser. Usage; streaming with `stream_options.include_usage`.
 */
export const completionsHandler: RouteHandler = async (ctx, req, res, body) => {
  const prompt = readPrompt(body);
  const includeUsage = body.stream === true && (body.stream_options as { include_usage?: unknown } | undefined)?.include_usage === true;
  await serveGeneration(ctx, req, res, body, [{ role: 'user', content: prompt }], (model): GenerationWire => {
    const id = ctx.nextId('cmpl');
    const created = ctx.created();
    const obj = (text: string, finish: string | null, usage?: unknown) => ({
      id, object: 'text_completion', created, model,
      choices: [{ index: 0, text, logprobs: null, finish_reason: finish }],
      ...(usage !== undefined ? { usage } : {}),
    });
    let opened = false;
    let closedThink = false;
    return {
      whole: (g) => obj(`${g.reasoning ? `<think>${g.reasoning}</think>` : ''}${g.answer}`, g.finish, wireUsage(g.promptTokens, g.completionTokens)),
      start: () => [],
      delta: (kind, text) => {
        let pre = '';
        if (kind === 'reasoning' && !opened) { opened = true; pre = '<think>'; }
        if (kind === 'answer' && opened && !closedThink) { closedThink = true; pre = '</think>'; }
        return [{ data: obj(pre + text, null, includeUsage ? null : undefined) }];
      },
      end: (g) => [
        { data: obj(opened && !closedThink ? '</think>' : '', g.finish, includeUsage ? null : undefined) },
        ...(includeUsage ? [{ data: { id, object: 'text_completion', created, model, choices: [], usage: wireUsage(g.promptTokens, g.completionTokens) } }] : []),
        { data: '[DONE]' },
      ],
    };
  });
};
