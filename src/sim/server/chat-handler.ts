import type { IncomingMessage, ServerResponse } from 'node:http';
import { hash32 } from '../../core/hash';
import type { ChatMessage, Stage } from '../../llm/model';
import {
  chatChunk, chatCompletion, sendJson, startSse, wireUsage, writeSse, WireError, type ChatIdentity,
} from './openai-wire';
import { applyEarlyFault, checkRateLimit, type RouteHandler } from './sim-server-context';
import { SIDE_CHANNEL_FIELD } from '../served-side-channel';
import { readWireSampling } from './wire-sampling';
import type { SideChannelEntry } from '../side-channel';


const STAGES: ReadonlySet<string> = new Set(['solve', 'reflect', 'leadlearn', 'codream', 'lifecycle', 'meta', 'other']);
/** Characters per prefix-cache block: 16 tokens at the simulator's 4 characters per token. */
const BLOCK_CHARS = 64;

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

function parseMessages(body: Record<string, unknown>): ChatMessage[] {
  const raw = body.messages;
  if (!Array.isArray(raw) || raw.length === 0) throw new WireError(400, "'messages' must be a non-empty array", 'invalid_request_error', null, 'messages');
  return raw.map((m, i) => {
    const msg = m as { role?: unknown; content?: unknown };
    if (!msg || typeof msg.role !== 'string') throw new WireError(400, `'messages[${i}].role' is required`, 'invalid_request_error', null, `messages[${i}].role`);
    let content: string;
    if (typeof msg.content === 'string') content = msg.content;
    else if (Array.isArray(msg.content)) content = msg.content.map((p) => (p && typeof p === 'object' && typeof (p as { text?: unknown }).text === 'string' ? (p as { text: string }).text : '')).join('');
    else if (msg.content === null || msg.content === undefined) content = '';
    else throw new WireError(400, `'messages[${i}].content' must be a string or an array of parts`, 'invalid_request_error', null, `messages[${i}].content`);
    const role = msg.role === 'system' || msg.role === 'developer' ? 'system' : msg.role === 'assistant' ? 'assistant' : 'user';
    return { role, content };
  });
}

function optionalPositiveInt(body: Record<string, unknown>, key: string): number | undefined {
  const v = body[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1) throw new WireError(400, `'${key}' must be a positive integer`, 'invalid_request_error', null, key);
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

/**
 * `POST /v1/chat/completions`: the simulated model answers at once; the latency model decides
 * when the answer's tokens appear. Streaming spreads the (short) answer text over the billed
 * token count, so chunks arrive at the decode pace.
 */
export const chatHandler: RouteHandler = async (ctx, req, res, body) => {
  const messages = parseMessages(body);
  if (body.n !== undefined && body.n !== null && body.n !== 1) throw new WireError(400, "serve-sim supports only 'n' = 1", 'invalid_request_error', null, 'n');
  const maxTokens = optionalPositiveInt(body, 'max_tokens') ?? optionalPositiveInt(body, 'max_completion_tokens');
  const sampling = readWireSampling(body);
  const stream = body.stream === true;
  const includeUsage = stream && (body.stream_options as { include_usage?: unknown } | undefined)?.include_usage === true;
  const promptText = messages.map((m) => `${m.role}\n${m.content}`).join('\n');
  const stageHeader = header(req, 'x-evochamber-stage');
  const seedKey = header(req, 'x-evochamber-seed-key')
    ?? (typeof body.seed === 'number' ? `seed:${body.seed}:${hash32(promptText)}` : undefined);
  const taskId = header(req, 'x-evochamber-task');
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
    taskId,
    seedKey,
  }, entry);
  const { promptTokens, completionTokens } = out.usage;
  const limitHeaders = checkRateLimit(ctx, promptTokens + completionTokens);
  const idn: ChatIdentity = { id: ctx.nextId('chatcmpl'), created: ctx.created(), model: typeof body.model === 'string' ? body.model : ctx.modelId };
  const finish = maxTokens !== undefined && completionTokens >= maxTokens ? 'length' : 'stop';
  const usage = wireUsage(promptTokens, completionTokens);
  const text = out.text;
  let sent = 0;
  let dropped = false;
  let started = false;
  let generated = 0;

  const handle = ctx.scheduler.submit({ promptTokens, outputTokens: Math.max(1, completionTokens), prefixBlocks: prefixBlocks(promptText) }, {
    onFirstToken: () => {
      started = true;
      if (!stream) return;
      startSse(res, limitHeaders);
      writeSse(res, chatChunk(idn, { role: 'assistant', content: '' }, null, includeUsage ? null : undefined));
    },
    onTokens: (n) => {
      generated = n;
      if (!stream || res.destroyed) return;
      if (fault === 'drop' && n * 2 >= completionTokens) { dropConnection(res); dropped = true; handle.cancel(); return; }
      const upTo = Math.floor((text.length * n) / Math.max(1, completionTokens));
      if (upTo > sent) {
        writeSse(res, chatChunk(idn, { content: text.slice(sent, upTo) }, null, includeUsage ? null : undefined));
        sent = upTo;
      }
    },
    onDone: () => {
      if (dropped) return;
      if (!stream) {
        if (fault === 'drop') { dropped = true; dropMidBody(res, chatCompletion(idn, text, finish, usage), limitHeaders); return; }
        if (!res.destroyed) ctx.metrics.finished(finish, promptTokens, completionTokens);
        sendJson(res, 200, chatCompletion(idn, text, finish, usage), limitHeaders);
        return;
      }
      if (fault === 'drop') { dropped = true; dropConnection(res); return; }
      if (!res.destroyed) ctx.metrics.finished(finish, promptTokens, completionTokens);
      if (sent < text.length) writeSse(res, chatChunk(idn, { content: text.slice(sent) }, null, includeUsage ? null : undefined));
      writeSse(res, chatChunk(idn, {}, finish, includeUsage ? null : undefined));
      if (includeUsage) writeSse(res, chatChunk(idn, null, null, usage));
      writeSse(res, '[DONE]');
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
};

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
