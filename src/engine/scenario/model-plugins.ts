import type { LanguageModel } from '../../llm/model';
import type { EndpointUsage } from '../../llm/openai/endpoint';
import type { Task } from '../../tasks/task';
import type { Scenario } from './scenario-schema';
import type { TaskObserver } from './task-observer';

/**
 * Virtual time (scenario `model.latency`): the run puts its model behind a latency profile on a
 * discrete-event clock. A plug-in provides it (the simulator's does); the engine only drives it.
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
  stats(): VirtualStats | undefined;
  /** The virtual clock now, in seconds. */
  now(): number;
}

/** The figures of a virtual server the run reports (summary: virtualSeconds, tokensPerSecond, utilization). */
export interface VirtualStats {
  readonly virtualSeconds: number;
  /** Tokens generated, aborted requests' partial output included. */
  readonly generatedTokens: number;
  readonly tokensPerSecond: number;
  /** Achieved tokens/s over the profile's maximum at the run's request shape; null when nothing was generated. */
  readonly utilization: number | null;
  /** Virtual ms from submission to last token, summed over answered requests, and their output tokens. */
  readonly paceMs?: number;
  readonly paceTokens?: number;
}

/** A model that can say whether any endpoint is up; the engine pauses while none is. */
export interface ModelHealth {
  /** True when some endpoint can take requests now. */
  available(): boolean;
  /** Resolves at the next health change (or soon after; callers check `available()` again). */
  nextChange(): Promise<void>;
}

/** A backend's model for one run, and what the run must do with it. */
export interface BackendModel {
  readonly model: LanguageModel;
  /** Told when each task starts and ends (the simulator's side channel). */
  readonly observer?: TaskObserver;
  /** The model answers in zero time, so each evolve outcome is ready at once (evolve timing `instant`). */
  readonly zeroTime: boolean;
  /**
   * The code candidates the code grader runs come from a model (a real one, or one the run cannot
   * vouch for): the sandbox then needs bubblewrap or the scenario's opt-in. False only for the
   * in-process simulator, whose programs are the niches' own reference and distractor programs.
   */
  readonly modelWrittenCode: boolean;
  /**
   * Calls cost nothing and re-computing one gives the same answer (the in-process simulator): the
   * run then keeps no request journal unless asked (a resume re-computes) and skips fsync.
   */
  readonly freeCalls: boolean;
  /**
   * Removes the backend's secrets (the OpenAI pool's keys) from text; every line the run persists
   * (events, journal) passes through it. Absent where the backend holds none.
   */
  readonly redact?: (text: string) => string;
  /** Per-endpoint usage for the run summary; undefined for the in-process simulator. */
  endpointUsage(): Record<string, EndpointUsage> | undefined;
  /** Stop background work (health probes). */
  close(): Promise<void>;
  /**
   * Check every endpoint answers `GET /models` (and lists its model) before a run starts; rejects
   * with one line naming the first that does not. Resolves at once for an in-process model. May
   * resolve with one-line notices the run should say (a serve-sim reached without its side channel).
   */
  probe(): Promise<void | readonly string[]>;
  /** Endpoint health for the engine's outage pause; undefined for an in-process model. */
  readonly health?: ModelHealth;
  /** True when embeddings cost a remote call (and are worth journaling). */
  readonly remoteEmbeddings: boolean;
  /** Set when the run is in virtual time (`model.latency`): `model` is then the bare model, to wrap. */
  readonly latency?: VirtualLatency;
}

/** A virtual server shared by the runs of a sweep. */
export interface SharedLatency {
  readonly profile: string;
  /**
   * The virtual time of one run of the sweep; `key` orders its requests among the other runs' at one
   * instant; `priority`, when given, is read as each request is submitted and becomes its scheduling
   * priority on the server (lower first, as vLLM's `priority`).
   */
  forRun(scenario: Scenario, key: string, priority?: () => number): VirtualLatency;
  /** What the server did for the whole sweep. */
  stats(): VirtualStats;
  /** The shared clock now, in seconds. */
  now(): number;
}

/** A problem with a scenario a plug-in found: the field (dotted path) and what is wrong with it. */
export interface ScenarioIssue {
  readonly field: string;
  readonly message: string;
}

/**
 * A model plug-in: a backend the engine does not name (the simulated model is one), plugged in
 * where models are composed. The package entry and the CLI register the built-in ones
 * (`registerModelPlugin`); a run may add its own (`RunOptions.plugins`).
 * Contract: every method is pure with respect to the run (no I/O until the model is used) and
 * deterministic for a scenario.
 */
export interface ModelPlugin {
  /** The `model.backend` value it builds models for (`sim`), or a name when it only wraps. */
  readonly name: string;
  /**
   * Inline the files the parts of a scenario it owns name (the simulator's `sim.world`), reading
   * them relative to `dir`, the scenario's directory; called when a scenario is parsed, before
   * `validate`. Throws one line naming the file and field when one cannot be read.
   */
  resolve?(scenario: Scenario, dir: string): Scenario;
  /** Checks the parts of a scenario it owns (e.g. the simulator's `sim` overrides); called when a scenario is parsed. */
  validate?(scenario: Scenario): ScenarioIssue | undefined;
  /**
   * Build the model of a scenario whose `model.backend` is `name`; with `ctx.latency`, the run is
   * timed by that virtual time (a sweep's shared server) instead of one of its own.
   */
  build?(scenario: Scenario, ctx?: { readonly latency?: VirtualLatency }): BackendModel;
  /**
   * Virtual time for a scenario of this backend, also when the run's model is given directly or
   * replayed from a journal; undefined when the scenario runs in zero or real time.
   */
  latency?(scenario: Scenario): VirtualLatency | undefined;
  /**
   * Whether a run of this backend answers in zero time: a replay of such a run must apply evolve
   * outcomes the same way (`instant`).
   */
  zeroTime?(scenario: Scenario): boolean;
  /**
   * One virtual server and clock for every run of a sweep (`ablate --latency`): each run joins it
   * with its own key, which orders its requests among the others' at one instant. Undefined when
   * the scenario does not run in virtual time.
   */
  sharedLatency?(scenario: Scenario): SharedLatency | undefined;
  /**
   * How the scenario's world shows its tasks to the agents, when it changes their text (the
   * simulator's `taskFamilies` puts a problem-type line first); undefined when tasks are shown as
   * generated. A function of the scenario alone, so a resume and a replay see the same text.
   */
  presentTask?(scenario: Scenario): ((task: Task) => Task) | undefined;
  /** Wrap a model another backend built, when the scenario asks for it (serve-sim's side channel over the OpenAI pool); `built` itself otherwise. */
  wrap?(built: BackendModel, scenario: Scenario): BackendModel;
}

const registered: ModelPlugin[] = [];

/** Make a model plug-in available to every run of this process (idempotent for the same object). */
export function registerModelPlugin(plugin: ModelPlugin): void {
  if (registered.includes(plugin)) return;
  if (registered.some((p) => p.name === plugin.name)) throw new Error(`model plug-in "${plugin.name}" is registered already`);
  registered.push(plugin);
}

/** The registered plug-ins, then a run's own (`extra`). */
export function modelPlugins(extra: readonly ModelPlugin[] = []): readonly ModelPlugin[] {
  return extra.length === 0 ? registered : [...registered, ...extra.filter((p) => !registered.includes(p))];
}
