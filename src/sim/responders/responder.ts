import type { Rng } from '../../core/rng';
import type { ReadPrompt } from '../prompt-reader';
import type { SideChannelEntry } from '../side-channel';
import type { SimParams } from '../sim-params';
import type { SimWorld } from '../sim-world';

/** Everything a responder may look at: the prompt, the task's side channel, the world. */
export interface ResponderContext {
  readonly prompt: ReadPrompt;
  readonly entry: SideChannelEntry | undefined;
  readonly world: SimWorld;
  readonly params: SimParams;
  /** Seeded per request (from the request's seed key), so answers do not depend on call order. */
  readonly rng: Rng;
}

/** A simulated reply and the output-length class it is billed as. */
export interface SimReply {
  readonly text: string;
  /** A domain's name for an answer, `json` for a structured reply (sim-params `medianTokens`). */
  readonly lengthClass: string;
}

/** Answers one kind of request. */
export type Responder = (ctx: ResponderContext) => SimReply;
