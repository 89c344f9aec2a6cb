import path from 'node:path';
import type { ReportData } from './report-data';

/**
 * The parts of a run's scenario (run.json `config`: the validated scenario with every override
 * applied) that `evochamber run` flags can set. Read loosely: report/ does not depend on engine/
 * or llm/, and an older run.json may lack a section (the schema defaults apply then).
 */
export interface ReproducibleConfig {
  readonly name?: string;
  readonly variant?: string;
  readonly seed?: number;
  readonly stream?: { readonly tasks?: number };
  readonly engine?: {
    readonly inFlight?: number | 'auto';
    readonly staleness?: { readonly policy?: string; readonly tau?: number };
    readonly evolveTiming?: string;
  };
  readonly model?: ModelSection;
  /** `memory.embedder` when the scenario names one (`--embedder`). */
  readonly memory?: { readonly embedder?: string };
  readonly budget?: { readonly tokens?: number; readonly completionTokens?: number; readonly usd?: number };
  readonly prices?: Readonly<Record<string, { readonly input: number; readonly output: number }>>;
}

interface EndpointSection {
  readonly baseURL: string;
  readonly model: string;
  readonly name?: string;
  readonly group?: string;
  readonly apiKeyEnv?: string;
  readonly maxConcurrency?: number;
}

interface ModelSection {
  readonly backend: string;
  /** In-process simulator only: the latency profile it ran behind in virtual time. */
  readonly latency?: string;
  readonly endpoints?: readonly EndpointSection[];
  readonly bindings?: Record<string, string>;
  readonly embeddings?: { readonly baseURL?: string; readonly model: string; readonly apiKeyEnv?: string; readonly batchSize?: number; readonly dimensions?: number };
  readonly timeoutMs?: number;
  readonly retries?: number;
  readonly stream?: boolean;
  readonly simSideChannel?: boolean;
  /** Model-wide sampling fields and extra request fields (stage and endpoint settings travel in the scenario file). */
  readonly sampling?: Readonly<Record<string, unknown>>;
  readonly extraBody?: Readonly<Record<string, unknown>>;
}

/** Defaults of the scenario schema for the values reproduced here (an older run.json may omit them). */
const DEFAULT_IN_FLIGHT = 1;
/** `engine.staleness` defaults (DEFAULT_STALENESS_TAU in src/population/staleness/policy.ts; report/ does not import it). */
const DEFAULT_STALENESS = { policy: 'full', tau: 8 } as const;
/** `engine.evolveTiming`'s default. */
const DEFAULT_EVOLVE_TIMING = 'lag';
const DEFAULT_EMBED_BATCH = 64;

/** A word as the shell reads it: bare when it is plain, else single-quoted. */
export function shellWord(s: string): string {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/**
 * The backend flags that give `model` when applied to the scenario the run came from (see
 * `applyModelFlags` in src/cli/model-flags.ts). `--backend sim` is explicit, since the scenario
 * file may name another backend. Endpoints are listed with `--base-url` only when flags can say
 * all of them (one model, one key variable, no names, groups or bindings); otherwise they come
 * from the scenario file, and only the flags that tune them in place are given.
 */
export function backendFlags(model: ModelSection | undefined): string[] {
  if (!model || model.backend === 'sim') return ['--backend', 'sim', ...(model?.latency ? ['--latency', model.latency] : [])];
  const eps = model.endpoints ?? [];
  const shared = <T>(f: (e: EndpointSection) => T): { value: T } | null =>
    eps.length > 0 && eps.every((e) => f(e) === f(eps[0]!)) ? { value: f(eps[0]!) } : null;
  const sharedModel = shared((e) => e.model);
  const sharedKeyEnv = shared((e) => e.apiKeyEnv);
  const sharedConcurrency = shared((e) => e.maxConcurrency);
  const byUrl = sharedModel !== null && sharedKeyEnv !== null && !model.bindings && eps.every((e) => e.name === undefined && e.group === undefined);
  const out = ['--backend', 'openai'];
  // --api-key-env names the key of the endpoints (with --base-url) and of the embeddings (with --embed-model).
  let keyEnv: string | undefined;
  if (byUrl) {
    for (const e of eps) out.push('--base-url', e.baseURL);
    out.push('--model', sharedModel.value);
    keyEnv = sharedKeyEnv.value;
  } else if (sharedModel) {
    out.push('--model', sharedModel.value);
  }
  if (sharedConcurrency?.value !== undefined) out.push('--max-concurrency', String(sharedConcurrency.value));
  if (model.timeoutMs !== undefined) out.push('--timeout-ms', String(model.timeoutMs));
  if (model.retries !== undefined) out.push('--retries', String(model.retries));
  if (model.stream) out.push('--stream');
  if (model.simSideChannel === true) out.push('--sim-side-channel');
  if (model.simSideChannel === false) out.push('--no-sim-side-channel');
  const emb = model.embeddings;
  const embKeyFits = byUrl ? emb?.apiKeyEnv === keyEnv : true;
  if (emb && (emb.batchSize ?? DEFAULT_EMBED_BATCH) === DEFAULT_EMBED_BATCH && emb.dimensions === undefined && embKeyFits) {
    out.push('--embed-model', emb.model);
    if (emb.baseURL !== undefined) out.push('--embed-base-url', emb.baseURL);
    keyEnv ??= emb.apiKeyEnv;
  }
  if (keyEnv !== undefined) out.push('--api-key-env', keyEnv);
  return out;
}

/** `--sampling` and `--extra-body` giving the model-wide sampling settings (none when unset). */
export function samplingFlags(model: ModelSection | undefined): string[] {
  const nonEmpty = (o: Readonly<Record<string, unknown>> | undefined) => o !== undefined && Object.keys(o).length > 0;
  return [
    ...(nonEmpty(model?.sampling) ? ['--sampling', JSON.stringify(model!.sampling)] : []),
    ...(nonEmpty(model?.extraBody) ? ['--extra-body', JSON.stringify(model!.extraBody)] : []),
  ];
}

/** A run's budget and prices as `--budget-*` and `--price` flags (a run's budget; an ablation's flags mean the sweep's). */
export function budgetFlags(config: ReproducibleConfig): string[] {
  const b = config.budget;
  return [
    ...(b?.tokens !== undefined ? ['--budget-tokens', String(b.tokens)] : []),
    ...(b?.completionTokens !== undefined ? ['--budget-completion-tokens', String(b.completionTokens)] : []),
    ...(b?.usd !== undefined ? ['--budget-usd', String(b.usd)] : []),
    ...Object.entries(config.prices ?? {}).flatMap(([model, p]) => ['--price', `${model}=${p.input}/${p.output}`]),
  ];
}

/**
 * Every `evochamber run` flag that decides a run's result: variant, seed, tasks, tasks in
 * flight, the staleness policy and its τ, evolve timing, the backend (latency profile included),
 * sampling, and the run's budget and prices. (Under the simulated model `--in-flight` leaves the summary unchanged;
 * against a real server it changes which requests overlap, so it is part of the run.)
 */
export function reproduceFlags(config: ReproducibleConfig, variant: string, seed: number, tasks: number): string[] {
  return ['--variant', variant, '--seed', String(seed), '--tasks', String(tasks), ...scenarioFlags(config), ...budgetFlags(config)];
}

/**
 * The flags that decide a result beside the variant, the seed and the number of tasks: shared by
 * a run's reproduce command and an ablation's (`ablate` takes the same ones).
 */
export function scenarioFlags(config: ReproducibleConfig): string[] {
  return [
    '--in-flight', String(config.engine?.inFlight ?? DEFAULT_IN_FLIGHT),
    '--staleness', config.engine?.staleness?.policy ?? DEFAULT_STALENESS.policy,
    '--tau', String(config.engine?.staleness?.tau ?? DEFAULT_STALENESS.tau),
    '--evolve-timing', config.engine?.evolveTiming ?? DEFAULT_EVOLVE_TIMING,
    ...backendFlags(config.model),
    ...(config.memory?.embedder ? ['--embedder', config.memory.embedder] : []),
    ...samplingFlags(config.model),
  ];
}

/** What an ablation ran (its `ablation-plan.json`), as far as reproducing it needs. */
export interface AblationPlanView {
  readonly config: ReproducibleConfig;
  readonly variants: readonly string[];
  readonly seeds: number;
  readonly tasks?: number;
  /** `ablate`'s run flags, which override the scenario's for every run (not part of `config`). */
  readonly inFlight?: number | 'auto';
  readonly staleness?: { readonly policy?: string; readonly tau?: number };
  readonly evolveTiming?: 'lag' | 'when-ready';
  /** The sweep's budget (it decides which runs started). */
  readonly budget?: { readonly tokens?: number; readonly completionTokens?: number; readonly usd?: number };
  /** `--priorities` and `--deadline` (they decide the order runs go in and each run's window). */
  readonly priorities?: string;
  readonly deadlineHours?: number;
}

/** The scenario as every run of an ablation ran it: the scenario with `ablate`'s run flags applied. */
function asRun(plan: AblationPlanView): ReproducibleConfig {
  const e = plan.config.engine ?? {};
  return {
    ...plan.config,
    engine: {
      ...e,
      ...(plan.inFlight !== undefined ? { inFlight: plan.inFlight } : {}),
      ...(plan.staleness !== undefined ? { staleness: { ...e.staleness, ...plan.staleness } } : {}),
      ...(plan.evolveTiming !== undefined ? { evolveTiming: plan.evolveTiming } : {}),
    },
  };
}

/** `--budget-*` of a sweep's budget, and its `--priorities` and `--deadline`. */
function sweepFlags(plan: AblationPlanView): string[] {
  const b = plan.budget ?? {};
  return [
    ...(b.tokens !== undefined ? ['--budget-tokens', String(b.tokens)] : []),
    ...(b.completionTokens !== undefined ? ['--budget-completion-tokens', String(b.completionTokens)] : []),
    ...(b.usd !== undefined ? ['--budget-usd', String(b.usd)] : []),
    ...(plan.priorities !== undefined ? ['--priorities', plan.priorities] : []),
    ...(plan.deadlineHours !== undefined ? ['--deadline', String(plan.deadlineHours)] : []),
  ];
}

/** How to run the same ablation again: from the scenario as run (saved beside the report), or the original file. */
export function ablationReproduceCommands(plan: AblationPlanView, outDir: string): ReportData['reproduce'] {
  const own = ['--variants', plan.variants.join(','), '--seeds', String(plan.seeds), '--tasks', String(plan.tasks ?? plan.config.stream?.tasks ?? 0)];
  // A deadline chooses each run's window itself (ablate refuses --in-flight beside it).
  const scenario = scenarioFlags(asRun(plan)).filter((f, i, all) => plan.deadlineHours === undefined || (f !== '--in-flight' && all[i - 1] !== '--in-flight'));
  const flags = [...own, ...scenario, ...sweepFlags(plan)].map(shellWord).join(' ');
  // The saved scenario carries its prices; the original file may not (they may have come from --price).
  const prices = Object.entries(plan.config.prices ?? {}).flatMap(([m, p]) => ['--price', `${m}=${p.input}/${p.output}`]).map(shellWord).join(' ');
  const rel = path.relative(process.cwd(), outDir);
  const where = rel && !rel.startsWith('..') && !path.isAbsolute(rel) ? rel : outDir;
  return {
    scenarioFile: 'scenario.json',
    command: `npx evochamber ablate ${shellWord(path.join(where, 'scenario.json'))} ${flags}`,
    fromOriginal: `npx evochamber ablate ${shellWord(`scenarios/${plan.config.name ?? 'scenario'}.json`)} ${flags}${prices ? ` ${prices}` : ''}`,
  };
}

/** How to run the same scenario again: from the scenario as run (saved beside the report), or the original file. */
export function reproduceCommands(config: ReproducibleConfig, run: { scenario: string; variant: string; seed: number; tasks: number }, outDir: string): ReportData['reproduce'] {
  const flags = reproduceFlags(config, run.variant, run.seed, run.tasks).map(shellWord).join(' ');
  const rel = path.relative(process.cwd(), outDir);
  const where = rel && !rel.startsWith('..') && !path.isAbsolute(rel) ? rel : outDir;
  return {
    scenarioFile: 'scenario.json',
    command: `npx evochamber run ${shellWord(path.join(where, 'scenario.json'))} ${flags}`,
    fromOriginal: `npx evochamber run ${shellWord(`scenarios/${run.scenario}.json`)} ${flags}`,
  };
}
