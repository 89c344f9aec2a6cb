/**
 * Latency profiles of inference servers (docs/latency-profiles.md): how a GPU server with continuous
 * batching, or a hosted API, times its answers. The simulator's virtual server and serve-sim
 * follow them, and the engine reads them for utilization and planning. Each number is from the
 * table there; change them here when recalibrating, never in the schedulers.
 */

/** A local GPU server with continuous batching (vLLM / SGLang style). All times in model ms. */
export interface BatchProfile {
  readonly kind: 'batch';
  readonly name: string;
  /** Fixed cost of one engine step (weights read, overhead). */
  readonly stepFixedMs: number;
  /** Per running sequence per step. */
  readonly perSequenceMs: number;
  /** Per 1000 tokens of KV cache read per step (sum of the running sequences' contexts). */
  readonly perKiloContextMs: number;
  /** Per prompt token prefilled in the step (chunked prefill). */
  readonly perPrefillTokenMs: number;
  /** Most prompt tokens prefilled in one step. */
  readonly maxPrefillTokensPerStep: number;
  /** Step time jitter: uniform ±this fraction. */
  readonly jitter: number;
  /** Most sequences running at once. */
  readonly maxRunning: number;
  /** KV cache size in tokens, and its block size. */
  readonly kvCacheTokens: number;
  readonly blockTokens: number;
  /** API-server overhead added to every request before it reaches the scheduler (tokenize, HTTP). */
  readonly overheadMs: number;
  /** Default rate of injected 5xx answers. */
  readonly errorRate: number;
  /** Longest prompt plus answer the model takes, in tokens (vLLM's `max_model_len`; `/v1/models` lists it). */
  readonly maxModelLen: number;
}

/** A hosted API: latency independent of load, with rate limits. */
export interface ApiProfile {
  readonly kind: 'api';
  readonly name: string;
  /** Log-normal time to first token: median and 90th percentile. */
  readonly ttftMedianMs: number;
  readonly ttftP90Ms: number;
  /** Decode speed of one request, whatever the load. */
  readonly tokensPerSecond: number;
  /** Rate limits; over them the server answers 429 with retry headers. */
  readonly requestsPerMinute: number;
  readonly tokensPerMinute: number;
  readonly errorRate: number;
  /** Longest prompt plus answer the model takes, in tokens. */
  readonly maxModelLen: number;
}

/** Any latency profile. */
export type LatencyProfile = BatchProfile | ApiProfile;

/** Qwen3-8B BF16 on one H100 under vLLM (docs/latency-profiles.md, first section). */
export const QWEN3_8B_H100_VLLM: BatchProfile = {
  kind: 'batch',
  name: 'qwen3-8b-h100-vllm',
  stepFixedMs: 7.2,
  perSequenceMs: 0.035,
  perKiloContextMs: 0.055,
  perPrefillTokenMs: 0.035,
  maxPrefillTokensPerStep: 8192,
  jitter: 0.1,
  maxRunning: 1024,
  kvCacheTokens: 350_000,
  blockTokens: 16,
  overheadMs: 50,
  errorRate: 0,
  // Qwen3-8B's native context (max_position_embeddings), as vLLM serves it without rope scaling.
  maxModelLen: 40_960,
};

/** A GPT-4.1-mini class hosted API (docs/latency-profiles.md, second section). */
export const API_SMALL: ApiProfile = {
  kind: 'api',
  name: 'api-small',
  ttftMedianMs: 700,
  ttftP90Ms: 1500,
  tokensPerSecond: 70,
  requestsPerMinute: 5000,
  tokensPerMinute: 2_000_000,
  errorRate: 0.005,
  maxModelLen: 1_047_576,
};

/** Profiles by name, as `--profile` takes them. */
export const PROFILES: Readonly<Record<string, LatencyProfile>> = {
  [QWEN3_8B_H100_VLLM.name]: QWEN3_8B_H100_VLLM,
  [API_SMALL.name]: API_SMALL,
};

/** A profile by name; throws a message listing the known ones. */
export function getProfile(name: string): LatencyProfile {
  const p = PROFILES[name];
  if (!p) throw new Error(`unknown serve-sim profile "${name}" (profiles: ${Object.keys(PROFILES).join(', ')})`);
  return p;
}

/** The step time the batching profile predicts for a steady batch (no prefill, no jitter), in ms. */
export function predictedStepMs(p: BatchProfile, running: number, contextPerSequence: number): number {
  return p.stepFixedMs + p.perSequenceMs * running + (p.perKiloContextMs * running * contextPerSequence) / 1000;
}
