import type { LoadedScenario } from '../engine/scenario/scenario';
import type { ScenarioPatch } from '../core/scenario-patch';
import { EMBEDDER_NAMES } from '../llm/text-embedder';
import { listModelIds } from '../llm/openai/discover-models';
import { displayUrl, urlCredentialProblem } from '../llm/openai/openai-config';
import { PROFILES } from '../llm/latency-profiles';
import { UsageError, intFlag } from './usage';

/** The backend flags of `evochamber run`, as parseArgs returns them. */
export interface ModelFlags {
  readonly backend?: string;
  readonly 'base-url'?: string[];
  readonly model?: string;
  readonly 'api-key-env'?: string;
  readonly 'max-concurrency'?: string;
  readonly 'timeout-ms'?: string;
  readonly retries?: string;
  readonly stream?: boolean;
  readonly 'sim-side-channel'?: boolean;
  readonly 'no-sim-side-channel'?: boolean;
  readonly 'embed-model'?: string;
  readonly 'embed-base-url'?: string;
  readonly latency?: string;
  readonly embedder?: string;
}

/** parseArgs option specs of the backend flags. */
export const MODEL_FLAG_OPTIONS = {
  backend: { type: 'string' }, 'base-url': { type: 'string', multiple: true }, model: { type: 'string' },
  'api-key-env': { type: 'string' }, 'max-concurrency': { type: 'string' }, 'timeout-ms': { type: 'string' },
  retries: { type: 'string' }, stream: { type: 'boolean' }, 'sim-side-channel': { type: 'boolean' },
  'no-sim-side-channel': { type: 'boolean' }, 'embed-model': { type: 'string' }, 'embed-base-url': { type: 'string' },
  latency: { type: 'string' }, embedder: { type: 'string' },
} as const;

/** Help lines of the backend flags. */
export const MODEL_FLAGS_HELP = `Backend (default: the scenario's, usually the in-process simulator):
  --backend sim|openai      model backend
  --base-url URL            OpenAI-compatible endpoint incl. /v1 (repeat for several; implies openai;
                            replaces the scenario's endpoints and bindings)
  --model NAME              model id on the endpoints (default: the first one GET /models lists)
  --api-key-env VAR         environment variable holding the key (default OPENAI_API_KEY; may be unset)
  --max-concurrency N       requests in flight per endpoint (default 32)
  --timeout-ms N            per-attempt timeout (default 120000)
  --retries N               retries after the first attempt (default 4)
  --stream                  stream responses (measures time to first token)
  --sim-side-channel        send each task's gold answer with its requests, for a serve-sim on this
                            machine: refused unless every endpoint is on loopback (default: never)
  --no-sim-side-channel     never send gold answers (the default; overrides the scenario file)
  --embed-model NAME        embeddings through /v1/embeddings (default: local hashed embedder)
  --embed-base-url URL      embeddings endpoint (default: the first --base-url)
  --embedder NAME           embed lessons and queries locally with ${EMBEDDER_NAMES.join(' or ')} (memory.embedder;
                            use-lite: Universal Sentence Encoder Lite in-process, offline; default:
                            the backend's, hashed unless --embed-model)
  --latency PROFILE         run the in-process simulator behind serve-sim's latency model in virtual
                            time (${Object.keys(PROFILES).join(', ')}): no waiting; the summary adds
                            virtualSeconds, tokensPerSecond and utilization
`;

/**
 * The backend flags as a patch of the scenario's `model` (the whole section, which they replace;
 * the scenario schema checks it where the run is made); empty when none are given.
 */
export async function modelFlagsPatch(loaded: LoadedScenario, f: ModelFlags): Promise<ScenarioPatch> {
  const urls = f['base-url'] ?? [];
  const backend = f.backend ?? (urls.length > 0 ? 'openai' : undefined);
  if (backend !== undefined && backend !== 'sim' && backend !== 'openai') throw new UsageError(`--backend takes sim or openai, got "${backend}"`);
  // Checked before anything uses the URLs, so a key in one never reaches a message or a file.
  for (const [flag, url] of [...urls.map((u) => ['--base-url', u] as const), ...(f['embed-base-url'] ? [['--embed-base-url', f['embed-base-url']] as const] : [])]) {
    const problem = urlCredentialProblem(url);
    if (problem) throw new UsageError(`${flag} ${displayUrl(url)} ${problem}`);
    const shape = urlShapeProblem(url);
    if (shape) throw new UsageError(`${flag}: ${shape}`);
  }
  const current = loaded.scenario.model;
  const sampling = samplingOf(current);
  if (f.latency !== undefined) return withLatency(loaded, f, backend, urls.length > 0);
  const tuning = f['timeout-ms'] !== undefined || f.retries !== undefined || f.stream || f['sim-side-channel'] || f['no-sim-side-channel']
    || f['embed-model'] !== undefined || f['max-concurrency'] !== undefined;
  if (backend === undefined && !tuning) return {};
  if (backend === 'sim') {
    if (urls.length > 0) throw new UsageError('--base-url needs --backend openai');
    // The scenario's own virtual-time setting stays.
    return { model: { backend: 'sim', ...(current.backend === 'sim' && current.latency ? { latency: current.latency } : {}), ...sampling } };
  }
  if (f['sim-side-channel'] && f['no-sim-side-channel']) throw new UsageError('--sim-side-channel and --no-sim-side-channel exclude each other');
  const base = current.backend === 'openai' ? current : undefined;
  if (!base && urls.length === 0) throw new UsageError('--backend openai needs --base-url (or a scenario with model.endpoints)');
  const maxConcurrency = intFlag(f['max-concurrency'], '--max-concurrency', 1);
  let endpoints: Array<Record<string, unknown>> = base ? base.endpoints.map((e) => ({ ...e })) : [];
  if (urls.length > 0) {
    const model = f.model ?? await defaultModel(urls[0]!, f['api-key-env']);
    endpoints = urls.map((baseURL) => ({ baseURL, model, ...(f['api-key-env'] ? { apiKeyEnv: f['api-key-env'] } : {}) }));
  } else if (f.model !== undefined) {
    endpoints = endpoints.map((e) => ({ ...e, model: f.model }));
  }
  if (maxConcurrency !== undefined) endpoints = endpoints.map((e) => ({ ...e, maxConcurrency }));
  const timeoutMs = intFlag(f['timeout-ms'], '--timeout-ms', 100);
  const retries = intFlag(f.retries, '--retries', 0);
  const side = f['sim-side-channel'] ? true : f['no-sim-side-channel'] ? false : base?.simSideChannel;
  const embeddings = f['embed-model'] !== undefined
    ? { model: f['embed-model'], ...(f['embed-base-url'] ? { baseURL: f['embed-base-url'] } : {}), ...(f['api-key-env'] ? { apiKeyEnv: f['api-key-env'] } : {}) }
    : base?.embeddings;
  const { bindings: _dropped, ...kept } = base ?? {};
  return { model: {
    ...sampling,
    ...(urls.length > 0 ? kept : base ?? {}),
    backend: 'openai',
    endpoints,
    ...(timeoutMs !== undefined ? { timeoutMs } : {}),
    ...(retries !== undefined ? { retries } : {}),
    ...(f.stream ? { stream: true } : {}),
    ...(side !== undefined ? { simSideChannel: side } : {}),
    ...(embeddings ? { embeddings } : {}),
  } };
}

/** `--latency`: the in-process simulator in virtual time; any HTTP backend flag is an error. */
function withLatency(loaded: LoadedScenario, f: ModelFlags, backend: string | undefined, urls: boolean): ScenarioPatch {
  const name = f.latency!;
  if (!Object.hasOwn(PROFILES, name)) throw new UsageError(`--latency: unknown profile "${name}" (profiles: ${Object.keys(PROFILES).join(', ')})`);
  const http = backend === 'openai' || urls || f.model !== undefined || f['api-key-env'] !== undefined || f['max-concurrency'] !== undefined
    || f['timeout-ms'] !== undefined || f.retries !== undefined || f.stream || f['sim-side-channel'] || f['no-sim-side-channel']
    || f['embed-model'] !== undefined || f['embed-base-url'] !== undefined;
  if (http) throw new UsageError('--latency runs the in-process simulator in virtual time; it does not combine with HTTP backend flags (--backend openai, --base-url, --model, …). For a real-time server use serve-sim --time-scale');
  if (backend === undefined && loaded.scenario.model.backend !== 'sim') {
    throw new UsageError(`--latency runs the in-process simulator in virtual time, but ${loaded.file} uses the ${loaded.scenario.model.backend} backend; add --backend sim to run it on the simulator`);
  }
  return { model: { backend: 'sim', latency: name, ...samplingOf(loaded.scenario.model) } };
}

/** `--embedder NAME` as a patch of `memory.embedder` (a UsageError naming the embedders for an unknown one); empty when not given. */
export function embedderFlagPatch(name: string | undefined): ScenarioPatch {
  if (name === undefined) return {};
  if (!(EMBEDDER_NAMES as readonly string[]).includes(name)) throw new UsageError(`--embedder: unknown embedder "${name}" (embedders: ${EMBEDDER_NAMES.join(', ')})`);
  return { 'memory.embedder': name };
}

/** The sampling settings of a model section, which stay when flags change the backend. */
function samplingOf(m: LoadedScenario['scenario']['model']): Record<string, unknown> {
  return { ...(m.sampling ? { sampling: m.sampling } : {}), ...(m.extraBody ? { extraBody: m.extraBody } : {}), ...(m.stages ? { stages: m.stages } : {}) };
}

async function defaultModel(baseURL: string, apiKeyEnv: string | undefined): Promise<string> {
  const ids = await listModelIds(baseURL, apiKeyEnv);
  if (ids.length === 0) throw new UsageError(`${baseURL} lists no models; pass --model`);
  return ids[0]!;
}

/** What is wrong with the form of an endpoint URL (not http(s)://host…), or null; never echoes a credential. */
export function urlShapeProblem(url: string): string | null {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return `"${url.includes('@') ? '…' : url}" is not a URL; give the server's address with /v1, e.g. http://127.0.0.1:8000/v1`;
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return `${u.protocol}// is not http or https; give the server's address with /v1, e.g. http://${u.host || '127.0.0.1:8000'}/v1`;
  return null;
}
