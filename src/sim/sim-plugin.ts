import { z } from 'zod';
import type { LanguageModel } from '../llm/model';
import { QWEN3_8B_H100_VLLM } from '../llm/latency-profiles';
import { ServedSideChannelModel, type RoutedModel } from './served-side-channel';
import { SimSideChannel, type SimNiche, type SimTask } from './side-channel';
import { SimModel } from './sim-model';
import type { SimParams } from './sim-params';
import { loadWorldFile, simParamsSchema, worldFileSchema, type InlinedWorld } from './sim-world-file';
import { VirtualClock } from './virtual/virtual-clock';
import { VirtualServer, VirtualServerModel, type VirtualServerStats } from './virtual/virtual-server-model';

/**
 * The parts of a scenario the simulator reads. It declares them itself (sim/ sits below engine/);
 * the engine's `Scenario` satisfies them structurally, and the composition (the package entry, the
 * CLI) checks that when it registers `simPlugin`.
 */
export interface SimScenario {
  readonly seed: number;
  readonly sim: Readonly<Record<string, unknown>>;
  readonly model: { readonly backend: string; readonly latency?: string; readonly simSideChannel?: boolean };
  readonly engine: { readonly inFlight: number | 'auto' };
}

/** The latency profile `inFlight: "auto"` runs the in-process simulator under when the scenario names none. */
export const AUTO_LATENCY_PROFILE = QWEN3_8B_H100_VLLM.name;

/**
 * The scenario's `sim:` section: overrides of DEFAULT_SIM_PARAMS, and the world it names (`world`:
 * a world file's path relative to the scenario, or a bundled world's name; inlined when the
 * scenario is loaded, so run.json records the world the run ran in).
 */
export const simOverridesSchema = simParamsSchema.extend({
  world: z.union([z.string().min(1), worldFileSchema.extend({ source: z.string().optional() })]).optional(),
});

/** The scenario's inline overrides and the world it names (inlined), apart. */
export function scenarioWorld(sim: Readonly<Record<string, unknown>>): { inline: Partial<SimParams>; world: InlinedWorld | undefined } {
  const { world, ...inline } = sim;
  if (typeof world === 'string') return { inline: inline as Partial<SimParams>, world: loadWorldFile(world) };
  return { inline: inline as Partial<SimParams>, world: world as InlinedWorld | undefined };
}

/** Virtual time as the simulator provides it (the engine's VirtualLatency). */
export interface SimVirtualLatency {
  readonly profile: string;
  wrap(inner: LanguageModel): LanguageModel;
  hold<T>(work: Promise<T>): Promise<T>;
  stats(): VirtualServerStats | undefined;
  now(): number;
}

/** What the simulator's plug-in builds for a run (the engine's BackendModel). */
export interface SimBackendModel {
  readonly model: LanguageModel;
  readonly observer?: { taskStarted(task: SimTask, spec: SimNiche): void; taskEnded(taskId: string): void };
  readonly zeroTime: boolean;
  readonly modelWrittenCode: boolean;
  readonly freeCalls: boolean;
  endpointUsage(): undefined;
  close(): Promise<void>;
  probe(): Promise<void>;
  readonly remoteEmbeddings: boolean;
  readonly latency?: SimVirtualLatency;
}

/**
 * The scenario's virtual time, when it asks for it (`model.latency`, in-process simulator only).
 * `inFlight: "auto"` measures production rates on a clock, and the zero-time simulator has none:
 * without a profile it runs in virtual time on `AUTO_LATENCY_PROFILE`.
 */
export function simLatency(scenario: SimScenario): SimVirtualLatency | undefined {
  if (scenario.model.backend !== 'sim') return undefined;
  const profile = scenario.model.latency ?? (scenario.engine.inFlight === 'auto' ? AUTO_LATENCY_PROFILE : undefined);
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

/** The simulator's virtual server shared by a sweep's runs (the engine's SharedLatency). */
export interface SimSharedLatency {
  readonly profile: string;
  forRun(scenario: SimScenario, key: string, priority?: () => number): SimVirtualLatency;
  stats(): VirtualServerStats;
  now(): number;
}

/**
 * One virtual server and clock for every run of a sweep (`ablate --latency`), as the runs would
 * share one GPU server: the batch scheduler sees all their requests. Its latency jitter is drawn
 * from the sweep's first seed. Undefined when the scenario does not run in virtual time.
 */
export function simSharedLatency(scenario: SimScenario): SimSharedLatency | undefined {
  const own = simLatency(scenario);
  if (!own) return undefined;
  const server = new VirtualServer({ profile: own.profile, seed: scenario.seed });
  const now = () => server.clock.now() / 1000;
  return {
    profile: own.profile,
    forRun: (_run, key, priority) => {
      let model: VirtualServerModel | undefined;
      return {
        profile: own.profile,
        wrap: (inner) => {
          if (model) throw new Error('virtual latency: wrap() is called once per run');
          model = server.join(inner, key, priority);
          return model;
        },
        hold: (work) => server.clock.hold(work),
        stats: () => model?.stats(),
        now,
      };
    },
    stats: () => server.stats(),
    now,
  };
}

/** The simulated model of a scenario: its inline `sim` overrides under the world it names. */
export function simModelOf(scenario: SimScenario, sideChannel?: SimSideChannel): SimModel {
  const { inline, world } = scenarioWorld(scenario.sim);
  return new SimModel({ seed: scenario.seed, params: inline, ...(world ? { world } : {}), ...(sideChannel ? { sideChannel } : {}) });
}

/**
 * The simulated model as a model plug-in (docs/simulated-model.md): it builds the model of
 * `model.backend: "sim"` scenarios (in zero time, or in virtual time behind a latency profile),
 * checks their `sim:` overrides, and, when a scenario over HTTP asks for it by name
 * (`model.simSideChannel: true`), wraps the OpenAI pool so each request carries its task's entry
 * to a serve-sim on loopback (served-side-channel.ts). It is registered by the package entry and
 * the CLI; the engine never names it.
 */
export const simPlugin = {
  name: 'sim',

  /** Inline the world file `sim.world` names (relative to the scenario's directory, or a bundled world). */
  resolve<S extends SimScenario>(scenario: S, dir: string): S {
    const ref = scenario.sim.world;
    if (typeof ref !== 'string') return scenario;
    try {
      return { ...scenario, sim: { ...scenario.sim, world: loadWorldFile(ref, dir) } };
    } catch (err) {
      throw new Error(`world ${(err as Error).message}`);
    }
  },

  validate(scenario: SimScenario): { field: string; message: string } | undefined {
    const parsed = simOverridesSchema.safeParse(scenario.sim);
    if (parsed.success) return undefined;
    const issue = parsed.error.issues[0]!;
    const at = [...issue.path, ...(issue.code === 'unrecognized_keys' ? [issue.keys[0]!] : [])].map(String);
    return { field: ['sim', ...at].join('.'), message: issue.code === 'unrecognized_keys' ? 'unknown field' : issue.message };
  },

  build(scenario: SimScenario, ctx?: { readonly latency?: SimVirtualLatency }): SimBackendModel {
    const channel = new SimSideChannel();
    const latency = ctx?.latency ?? simLatency(scenario);
    return {
      model: simModelOf(scenario, channel),
      observer: channel,
      zeroTime: latency === undefined,
      // Its code candidates are the niches' own reference and distractor programs, not model-written code.
      modelWrittenCode: false,
      freeCalls: true,
      endpointUsage: () => undefined,
      close: async () => {},
      probe: async () => {},
      remoteEmbeddings: false,
      ...(latency ? { latency } : {}),
    };
  },

  /** Under `taskFamilies` (global, or for some niche) the world shows each task with its problem-type line (sim-world.ts). */
  presentTask<T extends { readonly id: string; readonly niche: string; readonly question: string }>(scenario: SimScenario): ((task: T) => T) | undefined {
    const { inline, world } = scenarioWorld(scenario.sim);
    const shown = [inline, world?.params, ...Object.values(world?.niches ?? {})].some((p) => ((p as Partial<SimParams> | undefined)?.taskFamilies ?? 0) > 0);
    if (!shown) return undefined;
    const sim = simModelOf(scenario);
    return (task) => sim.world.present(task);
  },

  latency: simLatency,

  sharedLatency: simSharedLatency,

  zeroTime: (scenario: SimScenario): boolean => simLatency(scenario) === undefined,

  wrap<B extends { readonly model: LanguageModel }>(built: B, scenario: SimScenario): B {
    if (scenario.model.backend !== 'openai' || scenario.model.simSideChannel !== true) return built;
    const pool = built.model as Partial<RoutedModel>;
    if (typeof pool.baseURLs !== 'function') return built;
    const channel = new SimSideChannel();
    return { ...built, model: new ServedSideChannelModel(pool as RoutedModel, channel), observer: channel };
  },
};
