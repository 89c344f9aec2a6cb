import { hash32 } from '../core/hash';
import type { Completion, CompletionRequest, LanguageModel, Stage } from './model';
import type { Sampling, SamplingStage } from './sampling-fields';

/** The sampling stage of an accounting stage, when the caller names none finer. `other` has none. */
const OF_STAGE: Partial<Record<Stage, SamplingStage>> = {
  solve: 'solve', reflect: 'reflect', leadlearn: 'leader', codream: 'codream', lifecycle: 'lifecycle', meta: 'meta',
};

/** The sampling stage a request falls under (its own `samplingStage`, else its accounting stage's). */
export function samplingStageOf(req: CompletionRequest): SamplingStage | undefined {
  return req.samplingStage ?? OF_STAGE[req.stage];
}

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
