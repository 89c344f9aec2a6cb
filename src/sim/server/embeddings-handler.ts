import { estimateTokens } from '../../llm/model';
import { sendJson, WireError } from './openai-wire';
import { applyEarlyFault, checkRateLimit, type RouteHandler } from './sim-server-context';

/** Model milliseconds an embeddings batch takes: a fixed part and a per-token part. */
const EMBED_FIXED_MS = 5;
const EMBED_PER_TOKEN_MS = 0.01;

/** Little-endian float32 bytes, base64-encoded, as OpenAI's `encoding_format: "base64"`. */
export function toBase64Float32(v: Float32Array): string {
  const buf = Buffer.alloc(v.length * 4);
  for (let i = 0; i < v.length; i++) buf.writeFloatLE(v[i] as number, i * 4);
  return buf.toString('base64');
}

function inputs(body: Record<string, unknown>): string[] {
  const input = body.input;
  if (typeof input === 'string') return [input];
  if (Array.isArray(input) && input.length > 0 && input.every((x) => typeof x === 'string')) return input as string[];
  throw new WireError(400, "'input' must be a string or a non-empty array of strings", 'invalid_request_error', null, 'input');
}

/** `POST /v1/embeddings`: the simulator's hashed embedder, as floats or base64 float32. */
export const embeddingsHandler: RouteHandler = async (ctx, _req, res, body) => {
  const texts = inputs(body);
  const format = body.encoding_format ?? 'float';
  if (format !== 'float' && format !== 'base64') {
    throw new WireError(400, "'encoding_format' must be 'float' or 'base64'", 'invalid_request_error', null, 'encoding_format');
  }
  const fault = applyEarlyFault(ctx, res);
  if (fault === 'hang') return;
  const tokens = texts.reduce((a, t) => a + estimateTokens(t), 0);
  const headers = checkRateLimit(ctx, tokens);
  const vectors = await ctx.sim.embed(texts);
  const answer = {
    object: 'list',
    data: vectors.map((v, index) => ({ object: 'embedding', index, embedding: format === 'base64' ? toBase64Float32(v) : Array.from(v) })),
    model: typeof body.model === 'string' ? body.model : ctx.modelId,
    usage: { prompt_tokens: tokens, total_tokens: tokens },
  };
  const cancel = ctx.timer.after(EMBED_FIXED_MS + EMBED_PER_TOKEN_MS * tokens, () => {
    if (fault === 'drop') { res.socket?.destroy(); res.destroy(); return; }
    sendJson(res, 200, answer, headers);
  });
  res.on('close', () => { if (!res.writableFinished) cancel(); });
};
