import type { IncomingMessage, ServerResponse } from 'node:http';
import { hash32 } from '../../core/hash';
import { estimateTokens, type ChatMessage, type Stage } from '../../llm/model';
import { SIDE_CHANNEL_FIELD } from '../served-side-channel';
import type { SideChannelEntry } from '../side-channel';
import { sendJson, startSse, WireError } from './openai-wire';
import { applyEarlyFault, checkRateLimit, type SimServerContext } from './sim-server-context';
import { readWireSampling } from './wire-sampling';

const STAGES: ReadonlySet<string> = new Set(['solve', 'reflect', 'leadlearn', 'codream', 'lifecycle', 'meta', 'other']);
/** Characters per prefix-cache block: 16 tokens at the simulator's 4 characters per token. */
const BLOCK_CHARS = 64;
/** The working a served answer carries beyond its final text (4 characters a token, as the simulator counts). */
const WORKING = 'Let me work through this step by step, checking each part. ';

/** What the simulated model generated for one request, as every endpoint serves it. */
export interface Generation {
  /** The answer (chat `content`, the completion's text after the working, `output_text`). */
  readonly answer: string;
  /** The working before the answer: the billed tokens the answer's text does not hold. */
  readonly reasoning: string;
  readonly promptTokens: number;
  /** Tokens generated: the answer's plus the working's. */
  readonly completionTokens: number;
  readonly reasoningTokens: number;
  /** `length` when generation stopped at `max_tokens`, else `stop`. */
  readonly finish: 'stop' | 'length';
}

/** One SSE event: an optional `event:` name and its `data:` (an object, or `[DONE]`). */
export interface SseEvent {
  readonly event?: string;
  readonly data: unknown;
}

/** How one endpoint puts a generation on the wire. */
export interface GenerationWire {
  /** The body of a non-streamed answer. */
  whole(g: Generation): unknown;
  /** Events when the first token exists. */
  start(): SseEvent[];
  /** Events carrying new text of the working or of the answer. */
  delta(kind: 'reasoning' | 'answer', text: string): SseEvent[];
  /** Events that close the stream (finish reason, usage, terminator). */
  end(g: Generation): SseEvent[];
}

/** Header values are URI-encoded by EvoChamber's client (task ids may hold any character). */
function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  const s = Array.isArray(v) ? v[0] : v;
  if (s === undefined || s === '') return undefined;
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

function optionalPositiveInt(body: Record<string, unknown>, key: string): number | undefined {
  const v = body[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1) throw new WireError(400, `'${key}' must be a positive integer`, 'invalid_request_error', null, key);
  return v;
}

/**
 * The request's `priority` (an integer, default 0), as vLLM reads it: under `--scheduling-policy fcfs`
 * a non-zero one is refused with vLLM's message.
 */
function readPriority(ctx: SimServerContext, body: Record<string, unknown>): number {
  const v = body.priority;
  if (v === undefined || v === null) return 0;
  if (typeof v !== 'number' || !Number.isInteger(v)) throw new WireError(400, "'priority' must be an integer", 'invalid_request_error', null, 'priority');
  if (v !== 0 && ctx.schedulingPolicy !== 'priority') throw new WireError(400, `Got priority ${v} but Priority scheduling is not enabled.`, 'invalid_request_error', null, 'priority');
  return v;
}

/** The side-channel entry a request carries (`evochamber_sim: {task, spec}`), checked for shape; undefined when absent. */
function readSideChannelEntry(body: Record<string, unknown>): SideChannelEntry | undefined {
  const raw = body[SIDE_CHANNEL_FIELD];
  if (raw === undefined || raw === null) return undefined;
  const e = raw as { task?: { id?: unknown; niche?: unknown; domain?: unknown; difficulty?: unknown; hidden?: { answer?: unknown; distractors?: unknown } }; spec?: { id?: unknown; keywords?: unknown } };
  const t = e?.task;
  const ok = typeof t?.id === 'string' && typeof t.niche === 'string' && typeof t.domain === 'string' && typeof t.difficulty === 'number'
    && typeof t.hidden?.answer === 'string' && Array.isArray(t.hidden.distractors) && t.hidden.distractors.every((d) => typeof d === 'string')
    && typeof e.spec?.id === 'string' && Array.isArray(e.spec.keywords);
  if (!ok) throw new WireError(400, `'${SIDE_CHANNEL_FIELD}' must be {task: {id, niche, domain, difficulty, hidden: {answer, distractors}}, spec: {id, title, keywords}}`, 'invalid_request_error', null, SIDE_CHANNEL_FIELD);
  return raw as SideChannelEntry;
}

/** Hashes of the prompt's full cache blocks, each chained to the one before (an equal hash = an equal prefix). */
export function prefixBlocks(text: string): number[] {
  const out: number[] = [];
  let h = 0;
  for (let i = 0; i + BLOCK_CHARS <= text.length; i += BLOCK_CHARS) {
    h = hash32(`${h}/${text.slice(i, i + BLOCK_CHARS)}`);
    out.push(h);
  }
  return out;
}

/** The model a request names, which must be the one served (vLLM: 404 `model_not_found`); absent: the served one. */
export function servedModel(ctx: SimServerContext, body: Record<string, unknown>): string {
  const m = body.model;
  if (m === undefined || m === null) return ctx.modelId;
  if (typeof m !== 'string' || m !== ctx.modelId) {
    throw new WireError(404, `The model \`${String(m)}\` does not exist.`, 'invalid_request_error', 'model_not_found', 'model');
  }
  return m;
}

/** Working text of exactly `tokens` tokens at 4 characters a token. */
function working(tokens: number): string {
  const chars = tokens * 4;
  return WORKING.repeat(Math.ceil(chars / WORKING.length)).slice(0, chars);
}

/**
 * Answer one generation request (chat, completions, responses) with the simulated model and put
 * it on the wire at the latency model's pace: a rate-limit or fault check, the answer, then its
 * tokens scheduled on the batching (or API) latency model, streamed as they appear or sent whole.
 * The billed length is the simulator's drawn length (docs/latency-profiles.md, "Output lengths");
 * the tokens the answer's own text does not hold are sent as working before it, so the text sent
 * holds as many tokens as `completion_tokens` says. `max_tokens` cuts the working first, then the
 * answer, and only then is the finish reason `length`.
 */
export async function serveGeneration(
  ctx: SimServerContext, req: IncomingMessage, res: ServerResponse, body: Record<string, unknown>,
  messages: ChatMessage[], wire: (model: string) => GenerationWire,
): Promise<void> {
  const model = servedModel(ctx, body);
  if (body.n !== undefined && body.n !== null && body.n !== 1) throw new WireError(400, "serve-sim supports only 'n' = 1", 'invalid_request_error', null, 'n');
  const maxTokens = optionalPositiveInt(body, 'max_tokens') ?? optionalPositiveInt(body, 'max_completion_tokens') ?? optionalPositiveInt(body, 'max_output_tokens');
  const sampling = readWireSampling(body);
  const priority = readPriority(ctx, body);
  const stream = body.stream === true;
  const promptText = messages.map((m) => `${m.role}\n${m.content}`).join('\n');
  const promptEstimate = estimateTokens(promptText);
  if (promptEstimate + (maxTokens ?? 0) > ctx.maxModelLen) {
    throw new WireError(400, `This model's maximum context length is ${ctx.maxModelLen} tokens. However, you requested ${promptEstimate + (maxTokens ?? 0)} tokens (${promptEstimate} in the messages, ${maxTokens ?? 0} in the completion).`, 'BadRequestError', null, 'messages');
  }
  const stageHeader = header(req, 'x-evochamber-stage');
  const seedKey = header(req, 'x-evochamber-seed-key')
    ?? (typeof body.seed === 'number' ? `seed:${body.seed}:${hash32(promptText)}` : undefined);
  // The simulator's side channel, when the client sends it (served-side-channel.ts): the task's gold
  // answer and hidden tests travel with each request, so a restarted server forgets nothing.
  const entry = readSideChannelEntry(body);
  const fault = applyEarlyFault(ctx, res);
  if (fault === 'hang') return;
  const out = await ctx.sim.answer({
    messages,
    stage: (stageHeader && STAGES.has(stageHeader) ? stageHeader : 'other') as Stage,
    ...(maxTokens !== undefined ? { maxTokens } : {}),
    ...(sampling ? { sampling } : {}),
    agentId: header(req, 'x-evochamber-agent'),
    taskId: header(req, 'x-evochamber-task'),
    seedKey,
  }, entry);
  const { promptTokens } = out.usage;
  let completionTokens = out.usage.completionTokens;
  let answer = out.text;
  if (fault === 'truncate') {
    // The working runs to the limit and the answer never starts.
    answer = '';
    completionTokens = Math.max(1, maxTokens ?? ctx.maxModelLen - promptEstimate);
  } else if (maxTokens !== undefined && completionTokens > maxTokens) {
    answer = answer.slice(0, maxTokens * 4);
    completionTokens = maxTokens;
  }
  const reasoningTokens = Math.max(0, completionTokens - estimateTokens(answer));
  const g: Generation = {
    answer, reasoning: working(reasoningTokens), promptTokens, completionTokens, reasoningTokens,
    finish: fault === 'truncate' || (maxTokens !== undefined && completionTokens >= maxTokens) ? 'length' : 'stop',
  };
  const limitHeaders = checkRateLimit(ctx, promptTokens + completionTokens);
  const w = wire(model);
  const segments = [{ kind: 'reasoning' as const, text: g.reasoning, tokens: reasoningTokens }, { kind: 'answer' as const, text: answer, tokens: completionTokens - reasoningTokens }];
  const sentChars = [0, 0];
  let dropped = false;
  let started = false;
  let generated = 0;
  const t0 = ctx.timer.now();
  let tFirst = t0;
  const send = (events: SseEvent[]) => {
    if (res.destroyed) return;
    for (const e of events) res.write(`${e.event ? `event: ${e.event}\n` : ''}data: ${typeof e.data === 'string' ? e.data : JSON.stringify(e.data)}\n\n`);
  };
  /** Send what the first `n` tokens hold: the working's share first, then the answer's. */
  const sendUpTo = (n: number) => {
    let left = n;
    segments.forEach((s, i) => {
      const tokens = Math.min(left, s.tokens);
      left -= tokens;
      const upTo = tokens >= s.tokens ? s.text.length : Math.floor((s.text.length * tokens) / Math.max(1, s.tokens));
      if (upTo > sentChars[i]!) {
        send(w.delta(s.kind, s.text.slice(sentChars[i]!, upTo)));
        sentChars[i] = upTo;
      }
    });
  };
  const finished = () => ctx.metrics.finished({
    reason: g.finish, promptTokens, generationTokens: completionTokens,
    ttftSeconds: (tFirst - t0) / 1000, e2eSeconds: (ctx.timer.now() - t0) / 1000,
  });

  const handle = ctx.scheduler.submit({ promptTokens, outputTokens: Math.max(1, completionTokens), prefixBlocks: prefixBlocks(promptText), priority }, {
    onFirstToken: () => {
      started = true;
      tFirst = ctx.timer.now();
      if (!stream) return;
      startSse(res, limitHeaders);
      send(w.start());
    },
    onTokens: (n) => {
      generated = n;
      if (!stream || res.destroyed) return;
      if (fault === 'drop' && n * 2 >= completionTokens) { dropConnection(res); dropped = true; handle.cancel(); return; }
      sendUpTo(n);
    },
    onDone: () => {
      if (dropped) return;
      if (!stream) {
        if (fault === 'drop') { dropped = true; dropMidBody(res, w.whole(g), limitHeaders); return; }
        if (!res.destroyed) finished();
        sendJson(res, 200, w.whole(g), limitHeaders);
        return;
      }
      if (fault === 'drop') { dropped = true; dropConnection(res); return; }
      if (!res.destroyed) finished();
      sendUpTo(completionTokens);
      send(w.end(g));
      res.end();
    },
  });
  // The client went away before the answer was complete (speculative completion cancels this way):
  // stop generating, and count it as vLLM does.
  let closed = false;
  const onClose = () => {
    if (closed || res.writableFinished) return;
    closed = true;
    handle.cancel();
    if (!dropped) ctx.metrics.abort(started ? promptTokens : 0, generated);
  };
  res.on('close', onClose);
  // Gone already while the answer was being made: the close event has passed.
  if (res.destroyed) onClose();
}

/** Send the headers and half the body, then cut the connection (the `drop` fault, non-streamed). */
function dropMidBody(res: ServerResponse, body: unknown, headers: Record<string, string>): void {
  if (res.destroyed) return;
  const text = JSON.stringify(body);
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.write(text.slice(0, Math.floor(text.length / 2)), () => dropConnection(res));
}

function dropConnection(res: ServerResponse): void {
  res.socket?.destroy();
  res.destroy();
}
