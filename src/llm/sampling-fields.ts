import { z } from 'zod';

/**
 * The parts a model call plays, for sampling overrides (`model.stages`). Finer than the accounting
 * `Stage`: a critic's review is accounted under `solve`, a staleness verdict under `reflect`.
 */
export const SAMPLING_STAGES = ['solve', 'critic', 'reflect', 'codream', 'leader', 'lifecycle', 'staleness', 'meta'] as const;
/** One part a model call plays (see SAMPLING_STAGES). */
export type SamplingStage = (typeof SAMPLING_STAGES)[number];

/**
 * Sampling fields, named as the OpenAI / vLLM request body names them. Every field is optional:
 * one left unset is not sent, so the server's default decides it (an API's temperature 1.0, or what
 * vLLM reads from the model's generation config).
 */
export const samplingSchema = z.strictObject({
  /** 0 is greedy; at most 2, as vLLM's OpenAI server and the OpenAI API bound it. */
  temperature: z.number().min(0).max(2).optional(),
  /** Nucleus sampling: keep the smallest set of tokens whose probability reaches top_p. */
  top_p: z.number().gt(0).max(1).optional(),
  /** vLLM / SGLang: keep the top k tokens (-1: all). Hosted APIs reject it. */
  top_k: z.number().int().min(-1).optional(),
  /** vLLM / SGLang: drop tokens less likely than min_p times the most likely one. */
  min_p: z.number().min(0).max(1).optional(),
  /**
   * Base seed. Each request is sent its own seed derived from this and the request's seed key, so
   * voting's members and self-consistency's samples still differ; unset, the seed is derived from
   * the seed key alone (as before).
   */
  seed: z.number().int().min(0).max(0x7fffffff).optional(),
  /** Most tokens generated per answer (a caller's own limit wins). */
  max_tokens: z.number().int().positive().optional(),
  /** Stop sequences (up to 16). */
  stop: z.union([z.string().min(1), z.array(z.string().min(1)).min(1).max(16)]).optional(),
  presence_penalty: z.number().min(-2).max(2).optional(),
  frequency_penalty: z.number().min(-2).max(2).optional(),
});

/** Validated sampling fields. */
export type Sampling = z.infer<typeof samplingSchema>;

/** Fields merged into the request body as given (vLLM's `chat_template_kwargs`, `repetition_penalty`, …). */
export const extraBodySchema = z.record(z.string(), z.unknown(), { error: 'expected an object of request fields, e.g. {"chat_template_kwargs": {"enable_thinking": false}}' });

/** One stage's overrides. */
export const stageSamplingSchema = z.strictObject({
  sampling: samplingSchema.optional(),
  extraBody: extraBodySchema.optional(),
});

/** `model.stages`: overrides by sampling stage; a name that is not a stage is an error naming the stages. */
export const stagesSchema = z.record(z.string(), stageSamplingSchema).superRefine((stages, ctx) => {
  for (const name of Object.keys(stages)) {
    if (!(SAMPLING_STAGES as readonly string[]).includes(name)) {
      ctx.addIssue({ code: 'custom', path: [name], message: `unknown stage "${name}" (stages: ${SAMPLING_STAGES.join(', ')})` });
    }
  }
});
