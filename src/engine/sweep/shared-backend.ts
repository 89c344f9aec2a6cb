import { createRng } from '../../core/rng';
import { OpenAIPoolModel } from '../../llm/openai/openai-pool-model';
import type { EndpointUsage } from '../../llm/openai/endpoint';
import { modelPlugins, type BackendModel, type ModelPlugin, type SharedLatency, type VirtualStats } from '../scenario/model-plugins';
import { createModel } from '../run/model-stack';
import type { Scenario } from '../scenario/scenario-schema';
import type { RunBackendSource } from '../run/run-options';

/**
 * What the runs of one sweep share when they run in one process: one OpenAI-compatible pool (one
 * router, one cap per endpoint on requests in flight across every run), or one virtual server on one
 * clock (virtual time: the batch scheduler sees every run's requests). Each run gets its own view:
 * its own journal, accounting, observer and simulator side channel; closing a run's view closes
 * nothing shared.
 */
export interface SharedBackend extends RunBackendSource {
  /** What is shared: the pool, a virtual server, or nothing (the zero-time simulator needs no server). */
  readonly kind: 'pool' | 'virtual' | 'none';
  /**
   * The backend one run of the sweep uses; `key` sets its requests' order among the others' in virtual
   * time; `priority`, when given, is read as each request is made and sent as its scheduling priority
   * (vLLM's `priority`, lower first: the virtual server honours it, and over HTTP it is a body field).
   */
  forRun(scenario: Scenario, key: string, priority?: () => number): BackendModel;
  /** The shared virtual server's figures for the whole sweep (virtual time only). */
  stats(): VirtualStats | undefined;
  /** The sweep's clock in seconds: the shared virtual clock, or undefined outside virtual time. */
  now(): number | undefined;
  /** The shared pool's per-endpoint usage over every run (HTTP only). */
  endpointUsage(): Record<string, EndpointUsage> | undefined;
  /**
   * Latency and output tokens of every answer so far, summed (ms per token = ms / tokens): the pace a
   * request gets from the shared server. Undefined when nothing is shared.
   */
  pace(): { ms: number; tokens: number } | undefined;
  /** Close what is shared (the pool's health probes). */
  close(): Promise<void>;
}

/**
 * The shared backend of a sweep over `scenario`'s backend (every run of a sweep has the same model
 * section: variants and seeds change only the preset and the seed). The pool's retry jitter is drawn
 * from the sweep's first seed.
 */
export function createSharedBackend(scenario: Scenario, plugins: readonly ModelPlugin[] = modelPlugins()): SharedBackend {
  const cfg = scenario.model;
  if (cfg.backend === 'openai') {
    const pool = new OpenAIPoolModel(cfg, { rng: createRng(`${scenario.seed}/openai-pool`) });
    const view = (): BackendModel => ({
      model: pool,
      zeroTime: false,
      modelWrittenCode: true,
      freeCalls: false,
      redact: (text) => pool.redact(text),
      // Per endpoint, the usage is the sweep's, not one run's: the sweep reports it.
      endpointUsage: () => undefined,
      close: async () => {},
      probe: () => pool.probeEndpoints(),
      health: { available: () => pool.available(), nextChange: () => pool.nextHealthChange() },
      remoteEmbeddings: cfg.embeddings !== undefined,
    });
    return {
      kind: 'pool',
      forRun: (s, _key, priority) => prioritized(wrapped(view(), s, plugins), priority),
      stats: () => undefined,
      now: () => undefined,
      endpointUsage: () => pool.usage(),
      pace: () => pool.pace(),
      close: () => pool.close(),
    };
  }
  const plugin = plugins.find((p) => p.name === cfg.backend && p.build);
  const shared: SharedLatency | undefined = plugin?.sharedLatency?.(scenario);
  if (!plugin || !shared) {
    return { kind: 'none', forRun: (s) => createModel(s, plugins), stats: () => undefined, now: () => undefined, endpointUsage: () => undefined, pace: () => undefined, close: async () => {} };
  }
  return {
    kind: 'virtual',
    forRun: (s, key, priority) => wrapped(plugin.build!(s, { latency: shared.forRun(s, key, priority) }), s, plugins),
    stats: () => shared.stats(),
    now: () => shared.now(),
    endpointUsage: () => undefined,
    pace: () => { const s = shared.stats(); return { ms: s.paceMs ?? 0, tokens: s.paceTokens ?? 0 }; },
    close: async () => {},
  };
}

/** A run's view whose requests carry `priority()` when they set none (over HTTP, vLLM's body field). */
function prioritized(b: BackendModel, priority: (() => number) | undefined): BackendModel {
  if (!priority) return b;
  const inner = b.model;
  return { ...b, model: { name: inner.name, complete: (req) => inner.complete({ ...req, priority: req.priority ?? priority() }), embed: (t) => inner.embed(t) } };
}

/** Let every plug-in wrap a run's view (serve-sim's side channel over the pool, per run). */
function wrapped(built: BackendModel, scenario: Scenario, plugins: readonly ModelPlugin[]): BackendModel {
  let b = built;
  for (const p of plugins) if (p.wrap) b = p.wrap(b, scenario);
  return b;
}
