import { isLoopbackURL } from '../../core/loopback';
import { z } from 'zod';
import { extraBodySchema, samplingSchema, stagesSchema } from '../sampling-fields';

const int = () => z.number().int();
const envName = () => z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name');
/** Keys never go in a scenario: a field named `apiKey` is rejected with this message. */
const noKey = () => z.never({ error: 'API keys never go in a scenario file; name the environment variable that holds it in "apiKeyEnv"' }).optional();

/**
 * Why a base URL may not be stored, or null when it may: credentials in its userinfo or a query
 * string (where keys hide: `?api_key=…`). Such URLs are rejected at load, so nothing written by a
 * run (run.json, reports) can ever hold a key.
 */
export function urlCredentialProblem(url: string): string | null {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return null;
  }
  if (u.username || u.password) return 'holds credentials (user:key@); keys are never stored in a run: put the key in an environment variable and name it in "apiKeyEnv" (--api-key-env)';
  if (u.search) return 'has a query string, where keys hide; keys are never stored in a run: put the key in an environment variable and name it in "apiKeyEnv" (--api-key-env)';
  return null;
}

/** A base URL with userinfo and query removed, for messages about a URL that was rejected. */
export function displayUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return '<unparsable URL>';
  }
}

const baseUrl = () => z.url({ protocol: /^https?$/ }).superRefine((url, ctx) => {
  const problem = urlCredentialProblem(url);
  if (problem) ctx.addIssue({ code: 'custom', message: `${displayUrl(url)} ${problem}`, input: '' });
});

/** One OpenAI-compatible endpoint (a vLLM / SGLang server, or a hosted API). */
export const endpointConfigSchema = z.strictObject({
  /** Name in stats and the run summary; default `<model>@<host>`. */
  name: z.string().min(1).optional(),
  /** Base URL including `/v1`, e.g. `http://127.0.0.1:8000/v1`. */
  baseURL: baseUrl(),
  /** Model id as the server knows it (`--served-model-name` for vLLM). */
  model: z.string().min(1),
  /** Most requests in flight to this endpoint at once; more wait in the pool's queue. */
  maxConcurrency: int().min(1).max(4096).default(32),
  /** Environment variable holding the key; default `OPENAI_API_KEY`; absent is fine for local servers. */
  apiKeyEnv: envName().optional(),
  /** Binding group (heterogeneous pools): agents bound to this name use only its endpoints. */
  group: z.string().min(1).optional(),
  /** This endpoint's sampling defaults (per model); the scenario's `model.sampling` and stage settings override them field by field. */
  sampling: samplingSchema.optional(),
  /** Fields merged into this endpoint's requests as given (e.g. `chat_template_kwargs`); the request's own win. */
  extraBody: extraBodySchema.optional(),
  apiKey: noKey(),
});

/** An `/v1/embeddings` endpoint. */
export const embeddingsConfigSchema = z.strictObject({
  /** Default: the first chat endpoint's base URL (and key variable). */
  baseURL: baseUrl().optional(),
  model: z.string().min(1),
  apiKeyEnv: envName().optional(),
  /** Texts per request. */
  batchSize: int().min(1).max(2048).default(64),
  /** Requested vector size, for models that support it. */
  dimensions: int().positive().optional(),
  apiKey: noKey(),
});

/** The `model` section of a scenario for `backend: "openai"`. */
export const openaiModelSchema = z.strictObject({
  backend: z.literal('openai'),
  endpoints: z.array(endpointConfigSchema).min(1),
  embeddings: embeddingsConfigSchema.optional(),
  /** agentId → group or model name (`"*"`: every agent not listed). */
  bindings: z.record(z.string().min(1), z.string().min(1)).optional(),
  /** Per-attempt timeout (whole request, streamed body included). */
  timeoutMs: int().min(100).default(120_000),
  /** Retries after the first attempt (so `retries + 1` attempts at most). */
  retries: int().min(0).max(50).default(4),
  backoff: z.strictObject({
    baseMs: int().min(0).default(500),
    maxMs: int().min(0).default(20_000),
  }).default({ baseMs: 500, maxMs: 20_000 }),
  health: z.strictObject({
    /** Consecutive failures (5xx, timeouts, connection errors) that take an endpoint out. */
    failureThreshold: int().min(1).default(5),
    /** Wait before probing an endpoint that was taken out (`GET /models`). */
    cooldownMs: int().min(1).default(10_000),
  }).default({ failureThreshold: 5, cooldownMs: 10_000 }),
  /**
   * How long the run waits for an endpoint when none is healthy (no task starts meanwhile) before
   * it stops as `interrupted`, ready to resume.
   */
  outageTimeoutMs: int().min(0).default(600_000),
  /** Stream responses (SSE with usage) and measure time to first token. */
  stream: z.boolean().default(false),
  /** `max_tokens` sent when neither the request nor `sampling.max_tokens` sets one. */
  maxTokens: int().positive().optional(),
  /**
   * A reply cut off by the token limit (`finish_reason: length`) with no answer (docs/backends.md,
   * "Truncated replies"): `retry` asks again with a larger budget, then grades what comes back;
   * `fail` fails the call (the task is recorded as failed, not graded); `grade` grades it as it is.
   */
  onTruncated: z.enum(['retry', 'fail', 'grade']).default('retry'),
  /** Under `onTruncated: retry`: how many times a cut-off request is asked again. */
  truncatedRetries: int().min(1).max(4).default(1),
  /** Under `onTruncated: retry`: each retry's `max_tokens` is the cut-off budget times this. */
  truncatedBudgetFactor: z.number().min(1.1).max(16).default(2),
  /** Sampling fields sent with every request (docs/backends.md, "Sampling and request extras"); unset fields are left to the server. */
  sampling: samplingSchema.optional(),
  /** Fields merged into every request as given (vLLM's `chat_template_kwargs`, `repetition_penalty`, …). */
  extraBody: extraBodySchema.optional(),
  /** Overrides by stage (solve, critic, reflect, codream, leader, lifecycle, staleness, meta). */
  stages: stagesSchema.optional(),
  /**
   * The simulator's side channel, for serve-sim only: true sends each task's gold answer and hidden
   * tests with its requests, and is refused unless every endpoint is on loopback; absent or false
   * (the default), never. What a server says about itself is never enough.
   */
  simSideChannel: z.boolean().optional(),
}).superRefine((m, ctx) => {
  if (m.simSideChannel === true) {
    const remote = m.endpoints.findIndex((e) => !isLoopbackURL(e.baseURL));
    if (remote >= 0) ctx.addIssue({ code: 'custom', path: ['simSideChannel'], message: `gold answers go only to a serve-sim on this machine; endpoints[${remote}] is not on loopback (127.0.0.1, ::1, localhost)` });
  }
  const targets = new Set(m.endpoints.flatMap((e) => [e.model, ...(e.group ? [e.group] : [])]));
  for (const [agent, target] of Object.entries(m.bindings ?? {})) {
    if (!targets.has(target)) {
      ctx.addIssue({ code: 'custom', path: ['bindings', agent], message: `no endpoint has group or model "${target}"` });
    }
  }
});

/** A validated OpenAI backend configuration. */
export type OpenAIModelConfig = z.infer<typeof openaiModelSchema>;
/** One validated endpoint. */
export type EndpointConfig = z.infer<typeof endpointConfigSchema>;
/** Endpoint settings as written (defaults not applied), e.g. for `addEndpoint`. */
export type EndpointConfigInput = z.input<typeof endpointConfigSchema>;
/** A validated embeddings endpoint. */
export type EmbeddingsConfig = z.infer<typeof embeddingsConfigSchema>;
