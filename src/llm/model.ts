import type { Sampling, SamplingStage } from './sampling-fields';

/** Pipeline stages that call a model; token usage is accounted per stage. */
export type Stage = 'solve' | 'reflect' | 'leadlearn' | 'codream' | 'lifecycle' | 'meta' | 'other';

/** One chat message. */
export interface ChatMessage {
  readonly role: 'system' | 'user' | 'assistant';
  readonly content: string;
}

/** A completion request. Only `messages` is content; the rest is routing and accounting metadata. */
export interface CompletionRequest {
  readonly messages: readonly ChatMessage[];
  /** Which pipeline stage asks. Used for accounting and routing; a model never changes its answer by it. */
  readonly stage: Stage;
  readonly maxTokens?: number;
  /** Sampling fields sent with the request (the scenario's `model.sampling` and stage overrides; unset: the server's defaults). */
  readonly sampling?: Sampling;
  /** The part this call plays for sampling overrides, when finer than `stage` (`critic` within solve, `staleness` within reflect). */
  readonly samplingStage?: SamplingStage;
  /** The agent asking (heterogeneous pools bind agents to models). */
  readonly agentId?: string;
  /** The task this request serves; the simulated model finds its side channel by this id. */
  readonly taskId?: string;
  /**
   * A stable sampling key (e.g. `task-7/agent-2/solve/0`). Backends that support per-request seeds
   * derive the seed from it, so results do not depend on the order requests complete in.
   */
  readonly seedKey?: string;
  /**
   * Fields merged into the request body as given (e.g. vLLM's `chat_template_kwargs`). Only backends
   * that send requests over the wire read it; the in-process simulator ignores it.
   */
  readonly extraBody?: Readonly<Record<string, unknown>>;
  /**
   * Scheduling priority on the server (vLLM's request field `priority` under `--scheduling-policy
   * priority`: lower is served first, ties first come, first served). Sent as an extra body field when
   * set; it decides when an answer comes, never what it says, so it is not part of the journal's key.
   */
  readonly priority?: number;
  /**
   * HTTP statuses the server is known to refuse this kind of request with, again and again (its
   * structure was set aside for them: team/structure-cooldown.ts). An HTTP backend still sends the
   * request, but an attempt answered with one of them fails it at once, with no retry, and does not
   * count against the endpoint's health: the server answered, it refuses only this kind of request.
   * Routing metadata, not content: not part of the journal's key; the in-process simulator ignores it.
   */
  readonly knownRefusals?: readonly number[];
  /**
   * Aborted: the caller no longer wants the answer (e.g. voting's majority is already decided).
   * A backend cancels the request if it is still running and rejects with CompletionAbortedError;
   * a request that had already finished resolves normally. Never retried, never journaled as an answer.
   */
  readonly signal?: AbortSignal;
  /**
   * Whether a reply cut off by the token limit still holds an answer (the caller's niche knows: a
   * closed `\\boxed{}` or code block, never a fallback such as the last number of an unfinished
   * working). Absent: a cut-off reply holds none. Read only by the truncation policy
   * (truncation-policy.ts); not content, so not part of the journal's key.
   */
  readonly holdsAnswer?: (text: string) => boolean;
}

/** Token usage of one completion. */
export interface Usage {
  readonly promptTokens: number;
  readonly completionTokens: number;
  /**
   * Set when the backend's own counts were missing or invalid (e.g. negative, not a number): the
   * counts above are then character-based estimates, and this says what was wrong.
   */
  readonly unknown?: string;
}

/** Timing of one completion in milliseconds (virtual for the in-process simulator). */
export interface Timing {
  readonly ttftMs: number;
  readonly totalMs: number;
}

/** A finished completion. */
export interface Completion {
  readonly text: string;
  readonly usage: Usage;
  readonly timing: Timing;
  /** The model that answered. */
  readonly model: string;
  /** A reasoning model's thinking, kept out of `text` (backends that separate it; absent otherwise). */
  readonly reasoning?: string;
  /**
   * Why generation stopped, as the backend said it (`stop`; `length`: cut off by the token limit;
   * …). Absent when the backend does not say (the in-process simulator, which never cuts a reply off).
   */
  readonly finishReason?: string;
  /** The completion-token budget (`max_tokens`) the request was sent with, when one was and the reply was cut off by it. */
  readonly maxTokens?: number;
  /**
   * Replies cut off by the token limit with no answer behind this completion (the truncation
   * policy's retries included; their tokens are in `usage`); absent when none.
   */
  readonly truncated?: number;
}

/** True when a completion was cut off by the token limit (`finish_reason: length`). */
export function cutOff(c: Pick<Completion, 'finishReason'>): boolean {
  return c.finishReason === 'length';
}

/**
 * The one model interface everything above `src/llm/` talks to. Retries, routing, accounting and
 * latency are wrappers around it, never inside callers.
 * Contract: `complete` resolves or rejects (after the backend's own retries); `embed` returns one
 * L2-normalised vector per input text, all of the same dimension.
 */
export interface LanguageModel {
  readonly name: string;
  complete(req: CompletionRequest): Promise<Completion>;
  embed(texts: readonly string[]): Promise<Float32Array[]>;
}

/**
 * A completion cancelled through its request's `signal` before it finished. Not an infrastructure
 * failure and not an answer: the caller asked for it to stop.
 */
export class CompletionAbortedError extends Error {
  override readonly name = 'CompletionAbortedError';
  constructor(
    /** Completion tokens the backend did not generate because of the abort, when it knows them (null: unknown). */
    readonly tokensSaved: number | null = null,
    /** Completion tokens generated before the abort (billed by real servers), when known. */
    readonly tokensGenerated: number | null = null,
    /** True when `tokensSaved` is the backend's estimate (an HTTP server does not say how long the answer would have been). */
    readonly estimated = false,
  ) {
    super('completion aborted by the caller');
  }
}

/** True for a CompletionAbortedError (also across module copies). */
export function isCompletionAborted(e: unknown): e is CompletionAbortedError {
  return e instanceof CompletionAbortedError || (e instanceof Error && e.name === 'CompletionAbortedError');
}

/** Rough token estimate (≈4 characters per token) used where a backend reports no usage. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}
