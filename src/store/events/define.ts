import { z } from 'zod';

/**
 * How an event type is defined in the catalogue: its `type` and the zod shape of its body (the
 * fields a writer gives; the log adds `id`, `seq`, `time`, `procedure`). One definition serves the
 * writers' types (`EventLog.append`), the readers' types (`readRunEvents`) and the published JSON
 * Schema (`evochamber schema events`).
 */
export interface EventDef<T extends string = string, S extends z.ZodRawShape = z.ZodRawShape> {
  readonly type: T;
  /** What the event says, in one line (the docs' table and the JSON Schema's description). */
  readonly description: string;
  /** Strict: a field no definition names is a writer's drift, and the schema test fails on it. */
  readonly body: z.ZodObject<S & { type: z.ZodLiteral<T> }, z.core.$strict>;
}

/** Define one event type. */
export function defineEvent<const T extends string, S extends z.ZodRawShape>(type: T, description: string, shape: S): EventDef<T, S> {
  return { type, description, body: z.strictObject({ type: z.literal(type), ...shape }) };
}

/** The body a writer appends for a definition. */
export type BodyOf<D> = D extends EventDef<string, z.ZodRawShape> ? z.infer<D['body']> : never;

// Shared field shapes, so the same thing is written the same way in every event.
export const id = z.string();
export const int = z.number().int();
export const num = z.number();
export const text = z.string();
export const list = <S extends z.ZodType>(s: S) => z.array(s).readonly();
/** A pool version: the supervisor's counter, from 0. */
export const version = int.nonnegative();
/** Model calls and tokens of one stage (llm/token-accounting.ts `StageUsage`; the optional counts are absent when 0). */
export const stageUsage = z.strictObject({
  calls: int, promptTokens: int, completionTokens: int,
  /** Calls whose backend reported no usable token counts (estimates were counted). */
  unknownUsage: int.optional(),
  /** Calls cancelled by speculative completion: not in `calls`, their tokens not in the counts. */
  aborted: int.optional(),
  abortedTokensSaved: num.optional(),
  abortedCompletionTokens: num.optional(),
  /** Cost in billionths of a US dollar, when prices are configured. */
  costNanoUsd: int.optional(),
  /** Calls answered by a model with no configured price. */
  unpriced: int.optional(),
  /** Replies cut off by the token limit with no answer (llm/truncation-policy.ts); their tokens are in the counts. */
  truncated: int.optional(),
});
/** Calls and tokens by stage (`solve`, `reflect`, `codream`, `meta`, …). */
export const tokensByStage = z.record(z.string(), stageUsage);

/**
 * A field added after the event type was first written: the engine always writes it, but logs made
 * before it lack it, so readers (and the published schema) take it as optional.
 */
export const since = <S extends z.ZodType>(s: S) => s.optional();
