import type { ChatCompletionCreateParamsBase } from 'openai/resources/chat/completions';
import type { Clock } from '../../core/clock';
import { estimateTokens, type CompletionRequest } from '../model';
import { requestSeed } from '../sampling';
import type { Endpoint } from './endpoint';
import type { EndpointConfig } from './openai-config';
import { splitReasoning } from './reasoning';

/** What one successful attempt produced. Times in ms. */
export interface ChatAttemptResult {
  readonly text: string;
  readonly reasoning: string;
  readonly promptTokens: number;
  readonly completionTokens: number;
  readonly reasoningTokens: number;
  /** Set when the server's token counts were missing or invalid: the counts above are estimates. */
  readonly usageProblem?: string;
  readonly ttftMs: number;
  readonly totalMs: number;
  readonly model: string;
  /** The choice's `finish_reason` (`stop`, `length`, …), when the server sent one. */
  readonly finishReason?: string;
  /** The `max_tokens` sent, when one was. */
  readonly maxTokens?: number;
}

/** How to send one attempt. */
export interface ChatAttemptOptions {
  readonly stream: boolean;
  readonly maxTokens?: number;
  readonly signal: AbortSignal;
  readonly clock: Clock;
}

/** Header values are URI-encoded (ids may hold any character); `/` is kept readable. */
const headerValue = (v: string) => encodeURIComponent(v).replace(/%2F/gi, '/');

/**
 * The routing hints sent with every request: `x-evochamber-*` headers naming task, seed key, stage
 * and agent (real servers ignore them; serve-sim reads them). The per-request seed is in the body.
 */
export function requestHeaders(req: CompletionRequest): Record<string, string> {
  const headers: Record<string, string> = { 'x-evochamber-stage': headerValue(req.stage) };
  if (req.taskId !== undefined) headers['x-evochamber-task'] = headerValue(req.taskId);
  if (req.seedKey !== undefined) headers['x-evochamber-seed-key'] = headerValue(req.seedKey);
  if (req.agentId !== undefined) headers['x-evochamber-agent'] = headerValue(req.agentId);
  return headers;
}

type WithReasoning = { reasoning_content?: unknown; reasoning?: unknown };

/** Thrown for a reply that arrived but is not an answer (`content: null`, no choices): retried. */
export class MalformedReplyError extends Error {
  override readonly name = 'MalformedReplyError';
}

/** Token counts the server reported, each a non-negative safe integer or absent. */
interface ServerUsage {
  readonly prompt?: number;
  readonly completion?: number;
  readonly reasoning?: number;
  /** Why the counts were discarded (a field present with a bad value), else undefined. */
  readonly problem?: string;
}

const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;

/**
 * Read `usage` field by field. A count that is present but not a non-negative integer (−5,
 * "lots", 1.5, NaN) makes the whole usage unknown: one bad field casts doubt on the others, and
 * summing a string would turn the run's token totals into text.
 */
export function readServerUsage(raw: unknown): ServerUsage {
  if (raw === undefined || raw === null) return {};
  if (typeof raw !== 'object') return { problem: `usage is ${typeof raw}` };
  const u = raw as { prompt_tokens?: unknown; completion_tokens?: unknown; completion_tokens_details?: unknown };
  const details = u.completion_tokens_details as { reasoning_tokens?: unknown } | null | undefined;
  const fields: [string, unknown][] = [['prompt_tokens', u.prompt_tokens], ['completion_tokens', u.completion_tokens],
    ['reasoning_tokens', typeof details === 'object' && details !== null ? details.reasoning_tokens : undefined]];
  const bad = fields.filter(([, v]) => v !== undefined && v !== null && !isCount(v));
  if (bad.length > 0) return { problem: `invalid usage from the server (${bad.map(([k, v]) => `${k}=${JSON.stringify(v)?.slice(0, 20)}`).join(', ')})` };
  const pick = (v: unknown) => (isCount(v) ? v : undefined);
  return { prompt: pick(fields[0]![1]), completion: pick(fields[1]![1]), reasoning: pick(fields[2]![1]) };
}

/** Tokens a chat template may add around the messages (role markers, system preamble). */
const TEMPLATE_TOKENS = 4096;
const PER_MESSAGE_TOKENS = 16;
/** Without a max_tokens, no server generates more than this in one reply. */
const MAX_COMPLETION_TOKENS = 1 << 20;

/**
 * Why counts the server reported are beyond what this request could produce, or undefined. A prompt
 * has at most one token per UTF-8 byte (plus the template); a completion at most `max_tokens`;
 * reasoning is part of the completion. A count of 2^53−1 once reached the run's totals and broke the
 * report: such usage is treated as unknown (estimated, and logged), like an invalid one.
 */
export function implausibleUsage(u: ServerUsage, req: CompletionRequest, maxTokens: number | undefined): string | undefined {
  const promptBytes = req.messages.reduce((n, m) => n + Buffer.byteLength(m.content, 'utf8'), 0);
  const promptCap = promptBytes + PER_MESSAGE_TOKENS * req.messages.length + TEMPLATE_TOKENS;
  const completionCap = (maxTokens ?? MAX_COMPLETION_TOKENS) + PER_MESSAGE_TOKENS;
  const over: string[] = [];
  if (u.prompt !== undefined && u.prompt > promptCap) over.push(`prompt_tokens=${u.prompt} > ${promptCap}`);
  if (u.completion !== undefined && u.completion > completionCap) over.push(`completion_tokens=${u.completion} > ${completionCap}`);
  if (u.reasoning !== undefined && u.reasoning > (u.completion ?? completionCap)) over.push(`reasoning_tokens=${u.reasoning} > completion`);
  return over.length > 0 ? `usage beyond what the request could produce (${over.join(', ')})` : undefined;
}

const asText = (v: unknown): string => (typeof v === 'string' ? v : '');

/**
 * The chat request body for one endpoint: its own sampling and extra fields are defaults the
 * request's (the scenario's model-wide and stage settings) override field by field; a caller's
 * `maxTokens` beats `sampling.max_tokens`, which beats `model.maxTokens`. The `seed` is the
 * request's own (requestSeed: from its seed key, and `sampling.seed` when set; vLLM and SGLang honour it).
 */
export function requestBody(ep: Pick<EndpointConfig, 'model' | 'sampling' | 'extraBody'>, req: CompletionRequest, maxTokensDefault?: number): ChatCompletionCreateParamsBase {
  const merged = { ...ep.sampling, ...req.sampling };
  const seed = requestSeed({ ...req, sampling: merged });
  const { max_tokens: samplingMax, seed: _base, ...sampling } = merged;
  const maxTokens = req.maxTokens ?? samplingMax ?? maxTokensDefault;
  return {
    model: ep.model,
    messages: req.messages.map((m) => ({ role: m.role, content: m.content })),
    ...(maxTokens !== undefined ? { max_tokens: maxTokens } : {}),
    ...sampling,
    ...(seed !== undefined ? { seed } : {}),
    // As given: fields the openai client does not know (vLLM's `top_k`, `chat_template_kwargs`) go through.
    ...(ep.extraBody as Partial<ChatCompletionCreateParamsBase> | undefined),
    ...(req.extraBody as Partial<ChatCompletionCreateParamsBase> | undefined),
    // vLLM's scheduling priority, an extra body field the openai client does not know.
    ...(req.priority !== undefined ? { priority: req.priority } : {}),
  } as ChatCompletionCreateParamsBase;
}

/** Send one chat completion to one endpoint (no retries here). Rejects with the client's error. */
export async function chatAttempt(ep: Endpoint, req: CompletionRequest, o: ChatAttemptOptions): Promise<ChatAttemptResult> {
  const body = requestBody(ep.config, req, o.maxTokens);
  const t0 = o.clock.now();
  const options = { signal: o.signal, headers: requestHeaders(req) };
  let content = '';
  let sawContent = false;
  let reasoningField = '';
  let usage: unknown;
  let model = ep.config.model;
  let ttftMs: number | undefined;
  let finishReason: string | undefined;
  if (o.stream) {
    const stream = await ep.client.chat.completions.create({ ...body, stream: true, stream_options: { include_usage: true } }, options);
    for await (const chunk of stream) {
      if (typeof chunk.model === 'string' && chunk.model) model = chunk.model;
      if (chunk.usage) usage = chunk.usage;
      const choice = Array.isArray(chunk.choices) ? chunk.choices[0] : undefined;
      if (typeof choice?.finish_reason === 'string') finishReason = choice.finish_reason;
      const delta = choice?.delta as (WithReasoning & { content?: unknown }) | undefined;
      const text = asText(delta?.content);
      const thought = asText(delta?.reasoning_content) || asText(delta?.reasoning);
      if (typeof delta?.content === 'string') sawContent = true;
      if ((text || thought) && ttftMs === undefined) ttftMs = o.clock.now() - t0;
      content += text;
      reasoningField += thought;
    }
    // Cut off by the token limit before any token: an empty reply, not a malformed one.
    if (!sawContent && !reasoningField && finishReason !== 'length') throw new MalformedReplyError('the server streamed no content');
  } else {
    const r = await ep.client.chat.completions.create({ ...body, stream: false }, options);
    const choice = Array.isArray(r.choices) ? r.choices[0] : undefined;
    const message = choice?.message as (WithReasoning & { content?: unknown }) | undefined;
    if (!message) throw new MalformedReplyError('the server answered with no choices');
    if (typeof choice?.finish_reason === 'string') finishReason = choice.finish_reason;
    // `content: null` is not an empty answer: something went wrong upstream, so try again. Unless the
    // token limit cut the reply off while it was still thinking (vLLM's reasoning parser then sends
    // null): that is an empty answer, and the truncation policy decides what to do with it.
    if (message.content === null && finishReason === 'length') message.content = '';
    if (typeof message.content !== 'string') throw new MalformedReplyError(`the server answered with content: ${message.content === null ? 'null' : typeof message.content}`);
    content = message.content;
    reasoningField = asText(message.reasoning_content) || asText(message.reasoning);
    usage = r.usage;
    if (typeof r.model === 'string' && r.model) model = r.model;
  }
  const totalMs = o.clock.now() - t0;
  const split = splitReasoning(content, reasoningField);
  const read = readServerUsage(usage);
  const sentMax = (body as { max_tokens?: unknown }).max_tokens;
  const beyond = read.problem === undefined ? implausibleUsage(read, req, typeof sentMax === 'number' ? sentMax : undefined) : undefined;
  const server: ServerUsage = beyond ? { problem: beyond } : read;
  const reasoningTokens = server.reasoning ?? (split.reasoning ? estimateTokens(split.reasoning) : 0);
  const promptTokens = server.prompt ?? estimateTokens(req.messages.map((m) => m.content).join('\n'));
  const completionTokens = server.completion ?? estimateTokens(split.text) + reasoningTokens;
  return {
    text: split.text, reasoning: split.reasoning, promptTokens, completionTokens, reasoningTokens,
    ...(server.problem ? { usageProblem: server.problem } : {}),
    ttftMs: ttftMs ?? totalMs, totalMs, model,
    ...(finishReason !== undefined ? { finishReason } : {}),
    ...(typeof sentMax === 'number' ? { maxTokens: sentMax } : {}),
  };
}
