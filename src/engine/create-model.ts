import type { Scenario } from './scenario-schema';
import { createRng } from '../core/rng';
import { createHashEmbedder } from '../llm/hash-embedder';
import type { LanguageModel } from '../llm/model';
import type { EndpointUsage } from '../llm/openai/endpoint';
import { OpenAIPoolModel, type PoolDeps } from '../llm/openai/openai-pool-model';
import { RemoteSideChannel } from '../llm/sim/remote-side-channel';
import { SimSideChannel } from '../llm/sim/side-channel';
import { SimModel } from '../llm/sim/sim-model';
import { QWEN3_8B_H100_VLLM } from '../llm/sim/server/profiles';
import { VirtualClock } from '../llm/sim/virtual/virtual-clock';
import { VirtualServerModel, type VirtualServerStats } from '../llm/sim/virtual/virtual-server-model';

/**
 * Virtual time (scenario `model.latency`, README "Virtual time"): the run puts its model behind a
 * serve-sim latency profile on a discrete-event clock.
 */
export interface VirtualLatency {
  /** The latency profile's name. */
  readonly profile: string;
  /**
   * Put `inner` behind the latency model; call once. The run wraps its request journal, so an
   * answer served from a journal (resume, replay) takes the same virtual time as a computed one.
   */
  wrap(inner: LanguageModel): LanguageModel;
  /** Keep virtual time still until `work` settles: real I/O the run awaits (the code grader's sandbox). */
  hold<T>(work: Promise<T>): Promise<T>;
  /** What the virtual server did; undefined before `wrap`. */
  stats(): VirtualServerStats | undefined;
  /** The virtual clock now, in seconds. */
  now(): number;
}

/** The latency profile `inFlight: "auto"` runs the in-process simulator under when the scenario names none. */
export const AUTO_LATENCY_PROFILE = QWEN3_8B_H100_VLLM.name;

/**
 * The scenario's virtual time, when it asks for it (`model.latency`, in-process simulator only).
 * `inFlight: "auto"` measures production rates on a clock, and the zero-time simulator has none:
 * without a profile it runs in virtual time on `AUTO_LATENCY_PROFILE`.
 */
export function virtualLatency(scenario: Scenario): VirtualLatency | undefined {
  const cfg = scenario.model;
  if (cfg.backend !== 'sim') return undefined;
  const profile = cfg.latency ?? (scenario.engine.inFlight === 'auto' ? AUTO_LATENCY_PROFILE : undefined);
  if (profile === undefined) return undefined;
  const clock = new VirtualClock();
  let server: VirtualServerModel | undefined;
  return {
    profile,
    wrap: (inner) => {
      if (server) throw new Error('virtual latency: wrap() is called once per run');
      server = new VirtualServerModel(inner, { profile, seed: scenario.seed, clock });
      return server;
    },
    hold: (work) => clock.hold(work),
    stats: () => server?.stats(),
    now: () => clock.now() / 1000,
  };
}

/** A model built for a run, and what the run must do with it. */
export interface CreatedModel {
  readonly model: LanguageModel;
  /**
   * Where the engine registers in-flight tasks: the given one for the in-process simulator (and
   * for real servers, where it never leaves the process), a RemoteSideChannel when serve-sim
   * endpoints may need it.
   */
  readonly sideChannel: SimSideChannel;
  /** Per-endpoint usage for the run summary; undefined for the in-process simulator. */
  endpointUsage(): Record<string, EndpointUsage> | undefined;
  /** Stop background work (health probes, side-channel cleanup). */
  close(): Promise<void>;
  /**
   * Check every endpoint answers `GET /models` (and lists its model) before a run starts;
   * rejects with one line naming the first that does not. Resolves at once for the simulator.
   */
  probe(): Promise<void>;
  /** Endpoint health for the engine's outage pause; undefined for the in-process simulator. */
  readonly health?: { available(): boolean; nextChange(): Promise<void> };
  /** True when embeddings cost a remote call (and are worth journaling). */
  readonly remoteEmbeddings: boolean;
  /** Set when the scenario runs in virtual time (`model.latency`): `model` is then the bare simulator, to wrap. */
  readonly latency?: VirtualLatency;
}

/** Test and embedding hooks passed through to the OpenAI pool (key source, fetch, clock, sleep). */
export type CreateModelDeps = Omit<PoolDeps, 'beforeSend' | 'recover' | 'rng'>;

/**
 * Build the scenario's model: the in-process simulator, or an OpenAI-compatible pool. For the
 * pool, `model.simSideChannel` decides where the simulator's side channel goes: `true` every
 * endpoint, `false` none, absent only endpoints whose `/models` shows they are serve-sim.
 */
export function createModel(scenario: Scenario, sideChannel: SimSideChannel, deps: CreateModelDeps = {}): CreatedModel {
  const cfg = scenario.model;
  if (cfg.backend === 'sim') {
    const latency = virtualLatency(scenario);
    return {
      model: new SimModel({ seed: scenario.seed, params: scenario.sim, sideChannel }),
      sideChannel,
      endpointUsage: () => undefined,
      close: async () => {},
      probe: async () => {},
      remoteEmbeddings: false,
      ...(latency ? { latency } : {}),
    };
  }
  const remote = cfg.simSideChannel === false ? undefined : new RemoteSideChannel(cfg.simSideChannel ? 'all' : 'auto');
  const pool = new OpenAIPoolModel(cfg, {
    ...deps,
    rng: createRng(`${scenario.seed}/openai-pool`),
    ...(remote ? { beforeSend: remote.prepare, recover: remote.recover } : {}),
  });
  return {
    model: pool,
    sideChannel: remote ?? sideChannel,
    endpointUsage: () => pool.usage(),
    close: async () => {
      await remote?.close();
      await pool.close();
    },
    probe: () => pool.probeEndpoints(),
    health: { available: () => pool.available(), nextChange: () => pool.nextHealthChange() },
    remoteEmbeddings: cfg.embeddings !== undefined,
  };
}

/**
 * The model of `run --replay`: every answer comes from another run's journal, so nothing is
 * contacted. Completions never reach it (the journal answers or names the missing call);
 * embeddings are the local ones unless the journal holds them.
 */
export function offlineModel(scenario: Scenario, sideChannel: SimSideChannel): CreatedModel {
  const local = createHashEmbedder();
  const model: LanguageModel = {
    name: scenario.model.backend === 'sim' ? 'sim' : 'openai',
    complete: async (req) => { throw new Error(`replay: no journal answer for task ${req.taskId ?? '-'} stage ${req.stage}`); },
    embed: async (texts) => local.embed([...texts]),
  };
  const latency = virtualLatency(scenario);
  return {
    model, sideChannel, endpointUsage: () => undefined, close: async () => {}, probe: async () => {},
    remoteEmbeddings: scenario.model.backend === 'openai' && scenario.model.embeddings !== undefined,
    ...(latency ? { latency } : {}),
  };
}

/** Wrap a model given directly (tests, custom backends); a pool given this way still reports per-endpoint usage. */
export function useModel(model: LanguageModel, sideChannel: SimSideChannel): CreatedModel {
  // A simulated model (or a wrapper exposing one's side channel) keeps its own, so it can answer.
  const own = (model as { sideChannel?: unknown }).sideChannel;
  return {
    model,
    sideChannel: own instanceof SimSideChannel ? own : sideChannel,
    endpointUsage: () => (model instanceof OpenAIPoolModel ? model.usage() : undefined),
    close: async () => {},
    probe: async () => { if (model instanceof OpenAIPoolModel) await model.probeEndpoints(); },
    ...(model instanceof OpenAIPoolModel ? { health: { available: () => model.available(), nextChange: () => model.nextHealthChange() } } : {}),
    remoteEmbeddings: model instanceof OpenAIPoolModel && model.config.embeddings !== undefined,
  };
}
