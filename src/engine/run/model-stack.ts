import { sideChannelNotice } from '../../llm/openai/simulator-owner';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { createRng } from '../../core/rng';
import type { Clock } from '../../core/clock';
import { createHashEmbedder } from '../../llm/hash-embedder';
import { withEmbedder, type TextEmbedder } from '../../llm/text-embedder';
import type { LanguageModel } from '../../llm/model';
import { OpenAIPoolModel, type PoolDeps } from '../../llm/openai/openai-pool-model';
import { JOURNAL_FILE, JournaledModel, type MissingCall } from '../../llm/request-journal';
import { AccountingModel } from '../../llm/token-accounting';
import { TracedModel } from '../../llm/traced-model';
import { tracingEnabled } from '../../core/tracing/tracing';
import { TruncationModel } from '../../llm/truncation-policy';
import { SamplingModel, hasSampling, type SamplingConfig } from '../../llm/sampling';
import type { Prices } from '../../llm/pricing';
import { modelPlugins, type BackendModel, type ModelPlugin, type VirtualLatency } from '../scenario/model-plugins';
import type { Scenario } from '../scenario/scenario-schema';
import type { TaskObserver } from '../scenario/task-observer';
import type { Task } from '../../tasks/task';

/** Test and embedding hooks passed through to the OpenAI pool (key source, fetch, clock, sleep). */
export type CreateModelDeps = Omit<PoolDeps, 'rng'>;

/** No model plug-in builds the scenario's backend. */
export class UnknownBackendError extends Error {
  override readonly name = 'UnknownBackendError';
}

/**
 * The scenario's backend model: the built-in OpenAI-compatible pool, or the model a registered
 * plug-in builds (the simulator is one); then every plug-in may wrap it (serve-sim's side channel
 * wraps the pool when the scenario asks for it by name).
 */
export function createModel(scenario: Scenario, plugins: readonly ModelPlugin[] = modelPlugins(), deps: CreateModelDeps = {}): BackendModel {
  const cfg = scenario.model;
  let built: BackendModel;
  if (cfg.backend === 'openai') {
    const pool = new OpenAIPoolModel(cfg, { ...deps, rng: createRng(`${scenario.seed}/openai-pool`) });
    built = {
      model: pool,
      zeroTime: false,
      modelWrittenCode: true,
      freeCalls: false,
      redact: (text) => pool.redact(text),
      endpointUsage: () => pool.usage(),
      close: () => pool.close(),
      probe: async () => {
        await pool.probeEndpoints();
        return cfg.simSideChannel === true ? [] : pool.simulatorEndpoints().map(sideChannelNotice);
      },
      health: { available: () => pool.available(), nextChange: () => pool.nextHealthChange() },
      remoteEmbeddings: cfg.embeddings !== undefined,
    };
  } else {
    const plugin = plugins.find((p) => p.name === cfg.backend && p.build);
    if (!plugin) throw new UnknownBackendError(`model.backend "${cfg.backend}": no model plug-in builds it (the package entry and the CLI register the simulated model; a script that imports the engine directly passes RunOptions.plugins)`);
    built = plugin.build!(scenario);
  }
  for (const p of plugins) if (p.wrap) built = p.wrap(built, scenario);
  // Over the pool and what plug-ins put around it (serve-sim's side channel reaches the pool by its
  // routing methods): a retry of a cut-off reply goes the way the first request went.
  if (cfg.backend === 'openai') built = { ...built, model: new TruncationModel(built.model, cfg) };
  return built;
}

/** The virtual time a plug-in gives this scenario, if any. */
function pluginLatency(scenario: Scenario, plugins: readonly ModelPlugin[]): VirtualLatency | undefined {
  for (const p of plugins) {
    const l = p.name === scenario.model.backend ? p.latency?.(scenario) : undefined;
    if (l) return l;
  }
  return undefined;
}

/**
 * The model of `run --replay`: every answer comes from another run's journal, so nothing is
 * contacted. Completions never reach it (the journal answers or names the missing call);
 * embeddings are the local ones unless the journal holds them. It keeps the replayed backend's
 * timing: a zero-time run is replayed in zero time, a virtual-time run in virtual time.
 */
export function offlineModel(scenario: Scenario, plugins: readonly ModelPlugin[] = modelPlugins()): BackendModel {
  const local = createHashEmbedder();
  const model: LanguageModel = {
    name: scenario.model.backend,
    complete: async (req) => { throw new Error(`replay: no journal answer for task ${req.taskId ?? '-'} stage ${req.stage}`); },
    embed: async (texts) => local.embed([...texts]),
  };
  const latency = pluginLatency(scenario, plugins);
  const plugin = plugins.find((p) => p.name === scenario.model.backend);
  return {
    model, zeroTime: plugin?.zeroTime?.(scenario) ?? false, modelWrittenCode: true, freeCalls: false,
    endpointUsage: () => undefined, close: async () => {}, probe: async () => {},
    remoteEmbeddings: scenario.model.backend === 'openai' && scenario.model.embeddings !== undefined,
    ...(latency ? { latency } : {}),
  };
}

/**
 * What a model given directly may declare about itself (the simulated model does): that it
 * answers in zero time, and that it listens to tasks starting and ending.
 */
type SelfDescribing = Partial<TaskObserver> & { readonly zeroTime?: boolean };

/** Wrap a model given directly (tests, custom backends); a pool given this way still reports per-endpoint usage. */
export function useModel(model: LanguageModel, scenario?: Scenario, plugins: readonly ModelPlugin[] = modelPlugins()): BackendModel {
  const own = model as LanguageModel & SelfDescribing;
  const observer: TaskObserver | undefined = typeof own.taskStarted === 'function' && typeof own.taskEnded === 'function'
    ? { taskStarted: (t, n) => own.taskStarted!(t, n), taskEnded: (id) => own.taskEnded!(id) }
    : undefined;
  // An injected model runs in virtual time too when the scenario asks (its answers are held until ready).
  const latency = scenario ? pluginLatency(scenario, plugins) : undefined;
  const pool = model instanceof OpenAIPoolModel ? model : undefined;
  return {
    model: pool ? new TruncationModel(pool, pool.config) : model,
    ...(observer ? { observer } : {}),
    zeroTime: own.zeroTime === true && latency === undefined,
    modelWrittenCode: true,
    freeCalls: false,
    endpointUsage: () => pool?.usage(),
    close: async () => {},
    probe: async () => { await pool?.probeEndpoints(); },
    ...(pool ? { health: { available: () => pool.available(), nextChange: () => pool.nextHealthChange() } } : {}),
    remoteEmbeddings: pool !== undefined && pool.config.embeddings !== undefined,
    ...(latency ? { latency } : {}),
  };
}

/** The run's tasks as its scenario's world shows them (the backend's plug-in's `presentTask`), else as generated. */
export function presentedTasks(tasks: Iterable<Task>, scenario: Scenario, plugins: readonly ModelPlugin[] = modelPlugins()): Iterable<Task> {
  const present = plugins.find((p) => p.name === scenario.model.backend)?.presentTask?.(scenario);
  if (!present) return tasks;
  return (function* () { for (const t of tasks) yield present(t); })();
}

/** The backend for a run: a replay's journal, a model given directly, or the scenario's own. */
export function backendFor(scenario: Scenario, o: { replayFrom?: string; model?: LanguageModel; plugins?: readonly ModelPlugin[] }): BackendModel {
  const plugins = modelPlugins(o.plugins);
  if (o.replayFrom) return offlineModel(scenario, plugins);
  if (o.model) return useModel(o.model, scenario, plugins);
  return createModel(scenario, plugins);
}

/** How the run's model stack is put together around its backend. */
export interface ModelStackOptions {
  readonly backend: BackendModel;
  readonly runDir: string;
  /** Resuming: the run's own journal answers the calls it holds. */
  readonly resumed: boolean;
  /** Re-run from this journal file (`--replay`), strictly. */
  readonly replaySource?: string;
  /** Keep the journal (default: on, unless the backend's calls are free; on whenever the journal exists). */
  readonly journal?: boolean;
  /** A call a strict replay lacks. */
  readonly onMissing: (m: MissingCall) => void;
  readonly clock: Clock;
  /** Count each call's cost at these prices (USD per million tokens by model). */
  readonly prices?: Prices;
  /** The scenario's sampling settings (`model.sampling`, `extraBody`, `stages`), put on every request. */
  readonly sampling?: SamplingConfig;
  /** The scenario's `memory.embedder`, in place of the backend's embeddings (embedder-choice.ts). */
  readonly embedder?: TextEmbedder;
}

/** The run's model: backend, request journal, virtual time, token accounting. */
export interface ModelStack {
  /** What the run calls: accounting over (virtual time over) the journal over the backend. */
  readonly model: AccountingModel;
  readonly journal: JournaledModel;
  readonly backend: BackendModel;
  /** The run's clock in seconds: virtual under `--latency`, else wall time. */
  runClock(): number;
  /** Completion tokens generated so far (the adaptive controller's throughput measure). */
  generatedTokens(): number;
}

/**
 * Put the run's model together, innermost first: the backend; the request journal (a resume is
 * served from it, a replay strictly); the scenario's sampling settings in front of the journal, so
 * its key holds what is sent; virtual time in front of that, so an answer the journal serves takes
 * the same virtual time as a computed one; token accounting outermost.
 */
export function buildModelStack(o: ModelStackOptions): ModelStack {
  const journalFile = path.join(o.runDir, JOURNAL_FILE);
  // A resumed run keeps journaling when its journal exists (whatever the default).
  const journalOn = o.journal ?? (existsSync(journalFile) || o.replaySource !== undefined || !o.backend.freeCalls);
  const backendModel = o.embedder ? withEmbedder(o.backend.model, o.embedder) : o.backend.model;
  const journal = new JournaledModel(backendModel, {
    source: o.resumed ? journalFile : o.replaySource, target: journalOn ? journalFile : undefined, strict: o.replaySource !== undefined,
    copyServed: o.replaySource !== undefined, fsync: !o.backend.freeCalls, embeddings: o.backend.remoteEmbeddings, onMissing: o.onMissing,
    ...(o.backend.redact ? { redact: o.backend.redact } : {}),
  });
  const latency = o.backend.latency;
  const sampled = o.sampling && hasSampling(o.sampling) ? new SamplingModel(journal, o.sampling) : journal;
  const timed = latency ? latency.wrap(sampled) : sampled;
  // A span per call when tracing is on (--otel): right inside the accounting, so the spans count what the summary counts.
  const model = new AccountingModel(tracingEnabled() ? new TracedModel(timed, o.backend.modelWrittenCode ? 'openai' : 'evochamber.sim') : timed, o.prices);
  return {
    model, journal, backend: o.backend,
    runClock: latency ? () => latency.now() : () => o.clock.now() / 1000,
    generatedTokens: latency ? () => latency.stats()?.generatedTokens ?? 0 : () => model.report().total?.completionTokens ?? 0,
  };
}
