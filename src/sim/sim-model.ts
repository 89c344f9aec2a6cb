import { createRng } from '../core/rng';
import { hash32 } from '../core/hash';
import { createHashEmbedder } from '../llm/hash-embedder';
import type { Completion, CompletionRequest, LanguageModel } from '../llm/model';
import { CompletionAbortedError, estimateTokens } from '../llm/model';
import { readPrompt, withContextBudget, type RequestKind } from './prompt-reader';
import { reflectResponder } from './responders/reflect-responder';
import type { Responder } from './responders/responder';
import { solveResponder } from './responders/solve-responder';
import { reviewResponder } from './responders/review-responder';
import { decomposeResponder, partResponder } from './responders/decompose-responder';
import { chooseResponder, noteResponder } from './responders/leader-responder';
import { personaResponder } from './responders/persona-responder';
import { staleResponder } from './responders/stale-responder';
import { metaResponder } from './responders/meta-responder';
import {
  dreamContrastResponder, dreamCrystallizeResponder, dreamDebateResponder, dreamImagineResponder, dreamReflectResponder,
} from './responders/codream-responder';
import { SimSideChannel, type SideChannelEntry, type SimNiche, type SimTask } from './side-channel';
import { medianTokensOf, type SimParams } from './sim-params';
import { SimWorld } from './sim-world';
import { worldParams, type WorldFile, type WorldParams } from './sim-world-file';
import { promptShare, temperedRng } from './temperature';

/** Options of the simulated model. */
export interface SimModelOptions {
  /** World and sampling seed. */
  readonly seed: number;
  /** Overrides of DEFAULT_SIM_PARAMS. */
  readonly params?: Partial<SimParams>;
  /** A world (sim-world-file.ts): its global overrides over `params`, and per-niche overrides for each niche's tasks. */
  readonly world?: Pick<WorldFile, 'params' | 'niches'>;
  /** Where the engine registers in-flight tasks; a fresh one if omitted. */
  readonly sideChannel?: SimSideChannel;
  /** Extra responders by request kind (later levels add their prompts here). */
  readonly responders?: Partial<Record<RequestKind, Responder>>;
}

/**
 * The built-in simulated language model (docs/simulated-model.md): a world model that reads the same
 * prompts a real backend gets and answers in the same formats. Deterministic for a seed and a
 * request's seed key, whatever order requests arrive in. A request's `sampling.temperature`, when
 * set, ties its draws to its prompt (temperature.ts); its other sampling and extra fields change nothing. Runs in virtual time: `timing` is what
 * the request would have taken on a single unbatched stream; nothing waits.
 * It answers at once, so a request's `signal` matters only if it has already aborted when the call
 * is made: the call then rejects with CompletionAbortedError carrying the answer's length as the
 * tokens saved; an abort after the call leaves its answer standing.
 */
export class SimModel implements LanguageModel {
  readonly name = 'sim';
  /** It answers at once: a run given this model directly applies evolve outcomes as they are ready (the engine reads this). */
  readonly zeroTime = true;
  readonly params: SimParams;
  readonly world: SimWorld;
  private readonly worldParams: WorldParams;
  readonly sideChannel: SimSideChannel;
  private readonly responders: Partial<Record<RequestKind, Responder>>;
  private readonly embedder = createHashEmbedder();
  private unkeyed = 0;

  constructor(private readonly opts: SimModelOptions) {
    this.worldParams = worldParams(opts.params ?? {}, opts.world);
    this.params = this.worldParams.global;
    this.world = new SimWorld(opts.seed, this.params, (niche) => this.worldParams.forNiche(niche));
    this.sideChannel = opts.sideChannel ?? new SimSideChannel();
    this.responders = {
      solve: solveResponder, revise: solveResponder, synthesize: solveResponder, reflect: reflectResponder,
      review: reviewResponder, decompose: decomposeResponder, part: partResponder, choose: chooseResponder, note: noteResponder,
      'dream-reflect': dreamReflectResponder, 'dream-contrast': dreamContrastResponder, 'dream-imagine': dreamImagineResponder,
      'dream-debate': dreamDebateResponder, 'dream-crystallize': dreamCrystallizeResponder, persona: personaResponder, stale: staleResponder, meta: metaResponder,
      ...opts.responders,
    };
  }

  /** The engine's task observer: a task starts (its entry goes into the side channel). */
  taskStarted(task: SimTask, spec: SimNiche): void {
    this.sideChannel.taskStarted(task, spec);
  }

  /** The engine's task observer: a task is done. */
  taskEnded(taskId: string): void {
    this.sideChannel.taskEnded(taskId);
  }

  complete(req: CompletionRequest): Promise<Completion> {
    return this.answer(req, this.sideChannel.get(req.taskId));
  }

  /** Answer `req` knowing `entry` about its task (serve-sim passes the entry its request carried). */
  async answer(req: CompletionRequest, entry: SideChannelEntry | undefined): Promise<Completion> {
    const prompt = readPrompt(req.messages);
    // A task's draws read its niche's parameters (the global ones unless a world file sets the niche's own).
    const params = entry ? this.worldParams.forNiche(entry.task.niche) : this.params;
    const key = req.seedKey ?? `unkeyed/${this.unkeyed++}/${hash32(prompt.full)}`;
    const own = createRng(`${this.opts.seed}/${key}`);
    // Temperature ties the draws to the prompt (none set: every draw the request's own, as before).
    const t = req.sampling?.temperature;
    const rng = t === undefined ? own : temperedRng(
      createRng(`${this.opts.seed}/prompt/${hash32(prompt.full)}/${req.taskId ?? ''}`), own,
      createRng(`${this.opts.seed}/${key}/temperature`), promptShare(t, params.temperatureIndependent),
    );
    const responder = this.responders[prompt.kind];
    // What the model reads under its context budget; billing and the prompt's draws stay on what was sent.
    const read = params.contextBudget > 0 ? readPrompt(withContextBudget(req.messages, params.contextBudget)) : prompt;
    const reply = responder
      ? responder({ prompt: read, entry, world: this.world, params, rng })
      : { text: 'I do not know how to answer that.', lengthClass: 'qa' as const };
    const promptTokens = estimateTokens(prompt.full);
    // Billed length: log-normal around the class median, with a per-prompt effect so the same
    // prompt gets similar lengths (docs/latency-profiles.md, "Output lengths").
    const zPrompt = createRng(`${this.opts.seed}/len/${hash32(prompt.full)}`).normal();
    const median = medianTokensOf(params, reply.lengthClass);
    const drawn = Math.round(median * Math.exp(params.lengthSigma * (0.6 * zPrompt + 0.8 * rng.normal())));
    const completionTokens = Math.max(estimateTokens(reply.text), Math.min(req.maxTokens ?? req.sampling?.max_tokens ?? Infinity, drawn));
    if (req.signal?.aborted) throw new CompletionAbortedError(completionTokens, 0);
    const ttftMs = params.ttftMs;
    return {
      text: reply.text,
      usage: { promptTokens, completionTokens },
      timing: { ttftMs, totalMs: ttftMs + completionTokens * params.msPerToken },
      model: this.name,
    };
  }

  embed(texts: readonly string[]): Promise<Float32Array[]> {
    return this.embedder.embed([...texts]);
  }
}
