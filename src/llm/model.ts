/** Pipeline stages that call a model; token usage is accounted per stage. */
export type Stage = 'solve' | 'reflect' | 'leadlearn' | 'codream' | 'lifecycle' | 'other';

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
  readonly temperature?: number;
  /** The agent asking (heterogeneous pools bind agents to models). */
  readonly agentId?: string;
  /** The task this request serves; the simulated model finds its side channel by this id. */
  readonly taskId?: string;
  /**
   * A stable sampling key (e.g. `task-7/agent-2/solve/0`). Backends that support per-request seeds
   * derive the seed from it, so results do not depend on the order requests complete in.
   */
  readonly seedKey?: string;
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

/** Rough token estimate (≈4 characters per token) used where a backend reports no usage. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}
