import type { ChatCompletionCreateParamsBase } from 'openai/resources/chat/completions';
import type { Clock } from '../../engine/clock';
import { hash32 } from '../../engine/rng';
import { estimateTokens, type CompletionRequest } from '../model';
import type { Endpoint } from './endpoint';
import { splitReasoning } from './reasoning';

/** What one successful attempt produced. Times in ms. */
export interface ChatAttemptResult {
  readonly text: string;
  readonly reasoning: string;
  readonly promptTokens: number;
  readonly completionTokens: number;
  readonly reasoningTokens: number;
  readonly ttftMs: number;
  readonly totalMs: number;
  readonly model: string;
}

/** How to send one attempt. */
export interface ChatAttemptOptions {
  readonly stream: boolean;
  readonly maxTokens?: number;
  readonly signal: AbortSignal;
  readonly clock: Clock;
  /** Extra request headers (the simulator's side channel marks registered tasks). */
  readonly headers?: Record<string, string>;
}

/** Header values are URI-encoded (ids may hold any character); `/` is kept readable. */
const headerValue = (v: string) => encodeURIComponent(v).replace(/%2F/gi, '/');

/**
 * The determinism and routing hints sent with every request: a 31-bit `seed` derived from the
 * request's seed key (vLLM and SGLang honour per-request seeds), and `x-evochamber-*` headers
 * naming task, seed key, stage and agent (real servers ignore them; serve-sim reads them).
 */
export function requestHints(req: CompletionRequest): { seed?: number; headers: Record<string, string> } {
  const headers: Record<string, string> = { 'x-evochamber-stage': headerValue(req.stage) };
  if (req.taskId !== undefined) headers['x-evochamber-task'] = headerValue(req.taskId);
  if (req.seedKey !== undefined) headers['x-evochamber-seed-key'] = headerValue(req.seedKey);
  if (req.agentId !== undefined) headers['x-evochamber-agent'] = headerValue(req.agentId);
  return { ...(req.seedKey !== undefined ? { seed: hash32(req.seedKey) & 0x7fffffff } : {}), headers };
}

type WithReasoning = { reasoning_content?: string | null; reasoning?: string | null };
type UsageLike = { prompt_tokens?: number; completion_tokens?: number; completion_tokens_details?: { reasoning_tokens?: number } | null } | null | undefined;

/** Send one chat completion to one endpoint (no retries here). Rejects with the client's error. */
export async function chatAttempt(ep: Endpoint, req: CompletionRequest, o: ChatAttemptOptions): Promise<ChatAttemptResult> {
  const hints = requestHints(req);
  const maxTokens = req.maxTokens ?? o.maxTokens;
  const body: ChatCompletionCreateParamsBase = {
    model: ep.config.model,
    messages: req.messages.map((m) => ({ role: m.role, content: m.content })),
    ...(maxTokens !== undefined ? { max_tokens: maxTokens } : {}),
    ...(req.temperature !== undefined ? { temperature: req.temperature } : {}),
    ...(hints.seed !== undefined ? { seed: hints.seed } : {}),
  };
  const t0 = o.clock.now();
  const options = { signal: o.signal, headers: { ...hints.headers, ...o.headers } };
  let content = '';
  let reasoningField = '';
  let usage: UsageLike;
  let model = ep.config.model;
  let ttftMs: number | undefined;
  if (o.stream) {
    const stream = await ep.client.chat.completions.create({ ...body, stream: true, stream_options: { include_usage: true } }, options);
    for await (const chunk of stream) {
      if (chunk.model) model = chunk.model;
      if (chunk.usage) usage = chunk.usage;
      const delta = chunk.choices[0]?.delta as (WithReasoning & { content?: string | null }) | undefined;
      const piece = (delta?.content ?? '') + (delta?.reasoning_content ?? delta?.reasoning ?? '');
      if (piece && ttftMs === undefined) ttftMs = o.clock.now() - t0;
      content += delta?.content ?? '';
      reasoningField += delta?.reasoning_content ?? delta?.reasoning ?? '';
    }
  } else {
    const r = await ep.client.chat.completions.create({ ...body, stream: false }, options);
    const message = r.choices[0]?.message as (WithReasoning & { content?: string | null }) | undefined;
    if (!message) throw new Error('the server answered with no choices');
    content = message.content ?? '';
    reasoningField = message.reasoning_content ?? message.reasoning ?? '';
    usage = r.usage;
    if (r.model) model = r.model;
  }
  const totalMs = o.clock.now() - t0;
  const split = splitReasoning(content, reasoningField);
  const reasoningTokens = usage?.completion_tokens_details?.reasoning_tokens ?? (split.reasoning ? estimateTokens(split.reasoning) : 0);
  const promptTokens = usage?.prompt_tokens ?? estimateTokens(req.messages.map((m) => m.content).join('\n'));
  const completionTokens = usage?.completion_tokens ?? estimateTokens(split.text) + reasoningTokens;
  return { text: split.text, reasoning: split.reasoning, promptTokens, completionTokens, reasoningTokens, ttftMs: ttftMs ?? totalMs, totalMs, model };
}
