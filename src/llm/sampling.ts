import { z } from 'zod';
import { hash32 } from '../core/hash';
import type { Completion, CompletionRequest, LanguageModel, Stage } from './model';

/**
 * The parts a model call plays, for sampling overrides (`model.stages`). Finer than the accounting
 * `Stage`: a critic's review is accounted under `solve`, a staleness verdict under `reflect`.
 */
export const SAMPLING_STAGES = ['solve', 'critic', 'reflect', 'codream', 'leader', 'lifecycle', 'staleness', 'meta'] as const;
/** One part a model call plays (see SAMPLING_STAGES). */
export type SamplingStage = (typeof SAMPLING_STAGES)[number];

/** The sampling stage of an accounting stage, when the caller names none finer. `other` has none. */
const OF_STAGE: Partial<Record<Stage, SamplingStage>> = {
  solve: 'solve', reflect: 'reflect', leadlearn: 'leader', codream: 'codream', lifecycle: 'lifecycle', meta: 'meta',
};

/** The sampling stage a request falls under (its own `samplingStage`, else its accounting stage's). */
export function samplingStageOf(req: CompletionRequest): SamplingStage | undefined {
  return req.samplingStage ?? OF_STAGE[req.stage];
}

/**
 * Sampling fields, named as the OpenAI / vLLM request body names them. Every field is optional:
 * one left unset is not sent, so the server's default decides it (an API's temperature 1.0, or what
 * vLLM reads from the model's generation config).
 */
export const samplingSchema = z.strictObject({
  /** 0 is greedy. */
  temperature: z.number().min(0).max(100).optional(),
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

/** The sampling settings of a `model` section (both backends). */
export interface SamplingConfig {
  readonly sampling?: Sampling;
  readonly extraBody?: Readonly<Record<string, unknown>>;
  readonly stages?: Readonly<Record<string, { readonly sampling?: Sampling; readonly extraBody?: Readonly<Record<string, unknown>> }>>;
}

/** True when the config sets anything (the wrapper is then needed). */
export function hasSampling(c: SamplingConfig): boolean {
  return Object.keys(c.sampling ?? {}).length > 0 || Object.keys(c.extraBody ?? {}).length > 0 || Object.keys(c.stages ?? {}).length > 0;
}

const nonEmpty = <T extends object>(o: T | undefined): T | undefined => (o && Object.keys(o).length > 0 ? o : undefined);

/**
 * What a request is sent with: the model-wide settings, then its stage's, then the request's own
 * (later wins field by field; extraBody merges at the top level).
 */
export function resolveSampling(c: SamplingConfig, req: CompletionRequest): { sampling?: Sampling; extraBody?: Record<string, unknown> } {
  const stage = samplingStageOf(req);
  const own = stage ? c.stages?.[stage] : undefined;
  const sampling = nonEmpty({ ...c.sampling, ...own?.sampling, ...req.sampling });
  const extraBody = nonEmpty({ ...c.extraBody, ...own?.extraBody, ...req.extraBody });
  return { ...(sampling ? { sampling } : {}), ...(extraBody ? { extraBody } : {}) };
}

/**
 * The seed a request is sent with: 31 bits from its seed key, mixed with `sampling.seed` when one is
 * set, so members of one vote (distinct seed keys) get distinct seeds and a new base seed moves them all.
 */
export function requestSeed(req: CompletionRequest): number | undefined {
  if (req.seedKey === undefined) return req.sampling?.seed;
  return (req.sampling?.seed === undefined ? hash32(req.seedKey) : hash32(`${req.sampling.seed}/${req.seedKey}`)) & 0x7fffffff;
}

/**
 * A wrapper that puts the scenario's sampling settings on every request (model-wide, then by
 * stage), before the request journal, so the journal's key holds what is sent.
 */
export class SamplingModel implements LanguageModel {
  readonly name: string;
  constructor(private readonly inner: LanguageModel, private readonly config: SamplingConfig) {
    this.name = inner.name;
  }

  complete(req: CompletionRequest): Promise<Completion> {
    return this.inner.complete({ ...req, ...resolveSampling(this.config, req) });
  }

  embed(texts: readonly string[]): Promise<Float32Array[]> {
    return this.inner.embed(texts);
  }
}
