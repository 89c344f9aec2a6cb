import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { treeCpuSeconds } from '../../core/machine-load';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { readRunEventsSync } from '../../store/events';
import { QWEN3_8B_H100_VLLM, getProfile } from '../../llm/latency-profiles';
import { costOf, type ModelPrice } from '../../llm/pricing';
import { maxTokensPerSecond } from '../../llm/server-capacity';
import { JOURNAL_FILE } from '../../llm/request-journal';
import { nicheCounts } from '../../tasks/stream';
import { getPreset } from '../scenario/presets';
import type { ModelPlugin } from '../scenario/model-plugins';
import { runScenario } from '../run/run-scenario';
import type { LoadedScenario } from '../scenario/scenario';
import { applyScenarioPatch, refuseScenarioOptions, SWEEP_SETTINGS } from '../scenario/apply-patch';
import { type ScenarioPatch } from '../../core/scenario-patch';

/** What `planSweep` is asked to predict. */
export interface PlanOptions {
  /** Variants (default: the scenario's own). */
  readonly variants?: readonly string[];
  /** Seeds, counted up from the scenario's seed (default 1). */
  readonly seeds?: number;
  /** What the planned runs change in the scenario, keyed by path (`stream.tasks`, `prices`, …). */
  readonly patch?: ScenarioPatch;
  /** The latency profile the pilot runs behind (default qwen3-8b-h100-vllm). */
  readonly latency?: string;
  /**
   * Pilots on the zero-time simulator instead (no latency profile): predicts tokens and CPU time
   * only (`virtualHours` 0, `hoursAtMaxRate` null), as a sweep without `--latency` spends them.
   */
  readonly zeroTime?: boolean;
  /** Tasks of each variant's pilot (default: 10 % of the stream, at least 24, at most 120). */
  readonly pilotTasks?: number;
  readonly plugins?: readonly ModelPlugin[];
  /** Told as each variant's pilot finishes. */
  readonly onPilot?: (variant: string, tasks: number) => void;
}

/** A predicted cost: calls, tokens and virtual hours (and dollars, with prices). */
export interface PlannedCost {
  readonly calls: number;
  readonly promptTokens: number;
  readonly completionTokens: number;
  /** Hours the run takes on one server of the profile, alone (run after run for a sweep). */
  readonly virtualHours: number;
  /**
   * Mean KV-cache context of the run's sequences over their decode steps, weighted by tokens generated
   * (Σ g·(p + g/2) / Σ g over its calls, from the pilot's calls): what each of its decoding sequences
   * reads per step on a shared server. Long answers hold the batch longest and have the longest
   * contexts, so it is well above a mean request's prompt + half its answer. Absent in plans made by hand.
   */
  readonly decodeContext?: number;
  /** CPU seconds the run takes (its process and the sandbox's) on this machine, at the pilot's measured rate per task (a measurement, not deterministic). */
  readonly cpuSeconds?: number;
  readonly usd?: number;
}

/** One run's prediction. */
export interface PlannedRun extends PlannedCost {
  readonly variant: string;
  readonly seed: number;
  readonly tasks: number;
}

/** What a sweep (or one run) is predicted to cost. */
export interface SweepPlan {
  readonly profile: string;
  readonly pilotTasks: number;
  readonly runs: readonly PlannedRun[];
  readonly total: PlannedCost & {
    /**
     * The least GPU-hours the tokens could take: total output at the profile's maximum output rate
     * for the pilots' request shape. Runs sharing one server at once approach it; a run alone does not.
     */
    readonly hoursAtMaxRate: number | null;
  };
}

/** Per task of one niche, from a pilot. */
interface NicheCost {
  calls: number;
  promptTokens: number;
  completionTokens: number;
  tasks: number;
}

interface Pilot {
  readonly byNiche: Map<string, NicheCost>;
  /** Calls and tokens not tied to one task (lifecycle windows), per task of the pilot. */
  readonly overhead: Omit<NicheCost, 'tasks'>;
  /** Virtual seconds per completion token the pilot took. */
  readonly secondsPerCompletionToken: number;
  /** CPU seconds of this process and its children (the code sandbox) per task of the pilot. */
  readonly cpuSecondsPerTask: number;
  readonly promptTokens: number;
  readonly completionTokens: number;
  readonly requests: number;
  /** Σ g·(p + g/2) over the pilot's answered calls (p prompt, g completion tokens): its token-weighted decode context × its output. */
  readonly contextWeighted: number;
}

type Tokens = Record<string, { calls: number; promptTokens: number; completionTokens: number }>;

/**
 * Predict a run's or a sweep's calls, tokens, virtual GPU-hours and, with prices, dollars, before
 * paying for any of it: each variant runs a short pilot on the simulated model in virtual time
 * behind the latency profile (interleaved, so every niche is seen), its cost per task is measured
 * by niche from the pilot's events, and each run of the sweep is extrapolated by its own stream's
 * niche mix. Virtual time scales with completion tokens at the pilot's pace. The bench
 * (`npm run bench -- sweep`) prints the prediction's error against full runs.
 */
export async function planSweep(given: LoadedScenario, opts: PlanOptions = {}): Promise<SweepPlan> {
  refuseScenarioOptions(opts, 'planSweep', SWEEP_SETTINGS);
  const loaded = applyScenarioPatch(given, opts.patch);
  const variants = [...(opts.variants ?? [loaded.scenario.variant])];
  for (const v of variants) getPreset(v);
  const seeds = Array.from({ length: opts.seeds ?? 1 }, (_, i) => loaded.scenario.seed + i);
  const tasks = loaded.scenario.stream.tasks;
  const profile = getProfile(opts.latency ?? QWEN3_8B_H100_VLLM.name);
  const pilotLatency = opts.zeroTime ? null : profile.name;
  const pilotTasks = opts.pilotTasks ?? Math.min(120, Math.max(24, Math.round(tasks / 10)));
  const price = priceOf(loaded);
  const runs: PlannedRun[] = [];
  let shape = { prompt: 0, completion: 0, requests: 0, contextWeighted: 0 };
  for (const variant of variants) {
    const pilot = await runPilot(loaded, variant, pilotTasks, pilotLatency, opts.plugins);
    opts.onPilot?.(variant, pilotTasks);
    shape = { prompt: shape.prompt + pilot.promptTokens, completion: shape.completion + pilot.completionTokens, requests: shape.requests + pilot.requests, contextWeighted: shape.contextWeighted + pilot.contextWeighted };
    for (const seed of seeds) {
      // Per-niche counts, not a walk per task: a plan for a billion tasks costs what one for ten does.
      const mix = nicheCounts({ ...loaded.scenario.stream, tasks, entries: loaded.scenario.stream.niches, niches: new Map(), seed });
      const sum = { calls: 0, promptTokens: 0, completionTokens: 0 };
      for (const [niche, n] of mix) {
        if (n === 0) continue;
        const c = pilot.byNiche.get(niche) ?? meanOver(pilot.byNiche);
        sum.calls += n * (c.calls / c.tasks + pilot.overhead.calls);
        sum.promptTokens += n * (c.promptTokens / c.tasks + pilot.overhead.promptTokens);
        sum.completionTokens += n * (c.completionTokens / c.tasks + pilot.overhead.completionTokens);
      }
      runs.push({
        variant, seed, tasks,
        calls: Math.round(sum.calls), promptTokens: Math.round(sum.promptTokens), completionTokens: Math.round(sum.completionTokens),
        virtualHours: (sum.completionTokens * pilot.secondsPerCompletionToken) / 3600,
        ...(pilot.contextWeighted > 0 ? { decodeContext: Math.round(pilot.contextWeighted / Math.max(1, pilot.completionTokens)) } : {}),
        cpuSeconds: pilot.cpuSecondsPerTask * tasks,
        ...(price ? { usd: costOf(price, sum) } : {}),
      });
    }
  }
  const add = (f: (r: PlannedRun) => number) => runs.reduce((a, r) => a + f(r), 0);
  const completionTokens = add((r) => r.completionTokens);
  const max = shape.requests > 0 && !opts.zeroTime ? maxTokensPerSecond(profile, {
    meanPromptTokens: shape.prompt / shape.requests,
    meanCompletionTokens: shape.completion / shape.requests,
    // A sequence's context over its decode, weighted by the tokens it generates (the pilots' calls).
    meanDecodeContext: shape.contextWeighted > 0 ? shape.contextWeighted / Math.max(1, shape.completion) : shape.prompt / shape.requests + shape.completion / shape.requests / 2,
  }) : null;
  return {
    profile: profile.name, pilotTasks, runs,
    total: {
      calls: add((r) => r.calls), promptTokens: add((r) => r.promptTokens), completionTokens, virtualHours: add((r) => r.virtualHours), cpuSeconds: add((r) => r.cpuSeconds ?? 0),
      ...(price ? { usd: add((r) => r.usd ?? 0) } : {}),
      hoursAtMaxRate: max ? completionTokens / max / 3600 : null,
    },
  };
}

/** The price the scenario's calls are charged at: its model's (the first endpoint's for several), else none. */
function priceOf(loaded: LoadedScenario): ModelPrice | undefined {
  const all = loaded.scenario.prices ?? {};
  const m = loaded.scenario.model;
  const name = m.backend === 'openai' ? m.endpoints[0]!.model : m.backend;
  return all[name];
}

function meanOver(byNiche: Map<string, NicheCost>): NicheCost {
  const all = [...byNiche.values()];
  const sum = (f: (c: NicheCost) => number) => all.reduce((a, c) => a + f(c), 0);
  return { calls: sum((c) => c.calls), promptTokens: sum((c) => c.promptTokens), completionTokens: sum((c) => c.completionTokens), tasks: Math.max(1, sum((c) => c.tasks)) };
}

/** The event types a pilot's costs are read from (below). */
const PILOT_EVENTS = ['task.started', 'task.done', 'evolve.applied', 'lifecycle.usage'];

/** One variant's pilot: a short interleaved run (in virtual time behind `profile`, or zero-time when null), measured from its events. */
async function runPilot(loaded: LoadedScenario, variant: string, tasks: number, profile: string | null, plugins: readonly ModelPlugin[] | undefined): Promise<Pilot> {
  const patch = { 'stream.order': 'interleaved', 'stream.tasks': tasks, 'model.backend': 'sim', ...(profile === null ? {} : { 'model.latency': profile }), variant };
  const dir = mkdtempSync(path.join(tmpdir(), 'evo-plan-'));
  try {
    const cpu0 = treeCpuSeconds();
    // The journal only to read each call's tokens back (the decode context); the run is the same without it.
    // Only the events the pilot's costs are read from: the run and its summary are the same.
    const { summary } = await runScenario(loaded, { patch, outDir: path.join(dir, 'run'), journal: true, logEvents: PILOT_EVENTS, ...(plugins ? { plugins } : {}) });
    // This process's CPU and its children's (the code sandbox's workers, reaped when the run closes them).
    const cpu = treeCpuSeconds() - cpu0;
    const contextWeighted = decodeContextWeight(path.join(dir, 'run', JOURNAL_FILE));
    const events = readRunEventsSync(path.join(dir, 'run'), { types: ['task.started', 'task.done', 'evolve.applied', 'lifecycle.usage'] });
    const nicheOf = new Map<string, string>();
    const byNiche = new Map<string, NicheCost>();
    const overhead = { calls: 0, promptTokens: 0, completionTokens: 0 };
    const addTo = (into: { calls: number; promptTokens: number; completionTokens: number }, t: Tokens | undefined) => {
      for (const u of Object.values(t ?? {})) {
        into.calls += u.calls;
        into.promptTokens += u.promptTokens;
        into.completionTokens += u.completionTokens;
      }
    };
    for (const e of events) {
      if (e.type === 'task.started') {
        const niche = e.niche;
        nicheOf.set(e.taskId, niche);
        if (!byNiche.has(niche)) byNiche.set(niche, { calls: 0, promptTokens: 0, completionTokens: 0, tasks: 0 });
        byNiche.get(niche)!.tasks += 1;
      } else if (e.type === 'task.done' || e.type === 'evolve.applied') {
        const c = byNiche.get(nicheOf.get(e.taskId) ?? '');
        if (c) addTo(c, e.tokens);
      } else {
        addTo(overhead, e.tokens);
      }
    }
    const t = summary.tokens.total;
    const n = Math.max(1, summary.tasks);
    return {
      byNiche,
      overhead: { calls: overhead.calls / n, promptTokens: overhead.promptTokens / n, completionTokens: overhead.completionTokens / n },
      secondsPerCompletionToken: t.completionTokens > 0 ? (summary.virtualSeconds ?? 0) / t.completionTokens : 0,
      cpuSecondsPerTask: cpu / n,
      promptTokens: t.promptTokens, completionTokens: t.completionTokens, requests: t.calls, contextWeighted,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Σ g·(p + g/2) over the answered calls of a run's request journal (p prompt, g completion tokens):
 * the KV context its decoding sequences read, summed over the tokens they generate. 0 without a journal.
 */
function decodeContextWeight(journal: string): number {
  if (!existsSync(journal)) return 0;
  let w = 0;
  for (const line of readFileSync(journal, 'utf8').split('\n')) {
    if (!line) continue;
    const u = (JSON.parse(line) as { c?: { usage?: { promptTokens: number; completionTokens: number } } }).c?.usage;
    if (u) w += u.completionTokens * (u.promptTokens + u.completionTokens / 2);
  }
  return w;
}
