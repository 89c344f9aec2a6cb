import type { Scenario } from '../engine/scenario-schema';
import { createRng } from '../engine/rng';
import type { LanguageModel } from './model';
import type { EndpointUsage } from './openai/endpoint';
import { OpenAIPoolModel, type PoolDeps } from './openai/openai-pool-model';
import { RemoteSideChannel } from './sim/remote-side-channel';
import { SimSideChannel } from './sim/side-channel';
import { SimModel } from './sim/sim-model';

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
}

/** Test and embedding hooks passed through to the OpenAI pool (key source, fetch, clock, sleep). */
export type CreateModelDeps = Omit<PoolDeps, 'beforeSend' | 'rng'>;

/**
 * Build the scenario's model: the in-process simulator, or an OpenAI-compatible pool. For the
 * pool, `model.simSideChannel` decides where the simulator's side channel goes: `true` every
 * endpoint, `false` none, absent only endpoints whose `/models` shows they are serve-sim.
 */
export function createModel(scenario: Scenario, sideChannel: SimSideChannel, deps: CreateModelDeps = {}): CreatedModel {
  const cfg = scenario.model;
  if (cfg.backend === 'sim') {
    return {
      model: new SimModel({ seed: scenario.seed, params: scenario.sim, sideChannel }),
      sideChannel,
      endpointUsage: () => undefined,
      close: async () => {},
    };
  }
  const remote = cfg.simSideChannel === false ? undefined : new RemoteSideChannel(cfg.simSideChannel ? 'all' : 'auto');
  const pool = new OpenAIPoolModel(cfg, {
    ...deps,
    rng: createRng(`${scenario.seed}/openai-pool`),
    ...(remote ? { beforeSend: remote.prepare } : {}),
  });
  return {
    model: pool,
    sideChannel: remote ?? sideChannel,
    endpointUsage: () => pool.usage(),
    close: async () => {
      await remote?.close();
      await pool.close();
    },
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
  };
}
