import path from 'node:path';
import { getProfile } from '../../llm/latency-profiles';
import type { LoadedScenario } from '../scenario/scenario';
import { applyScenarioPatch } from '../scenario/apply-patch';
import { patchWithout, scenarioPatch, type ScenarioPatch } from '../../core/scenario-patch';
import type { ModelPlugin } from '../scenario/model-plugins';
import { CriticalPathPriorities, type RunForecast, type SweepPriorities } from './critical-path';
import { planSweep, type SweepPlan } from './plan';
import { jobDir, runKey, runLocalSweep, type LocalSweepOptions, type SweepJob } from './sweep-local';
import { stat, type Stat } from '../../core/stats/mean-sd';
import type { RunSummary } from '../loop/summary';
import type { PriorityPolicy } from '../scenario/sweep-settings';
import { DEADLINE_RUN_SETTINGS, chooseWindows, predictSweep, runWork } from './deadline-window';

export { PRIORITY_POLICIES, type PriorityPolicy } from '../scenario/sweep-settings';

/** What a sweep's schedule is decided from. */
export interface ScheduleInput {
  readonly variants: readonly string[];
  readonly seeds: number;
  /** The sweep's patch: the pilots take what it says of the stream and the model, not its engine settings (the schedule decides those). */
  readonly patch?: ScenarioPatch;
  /** A plan made already (tests, the bench); otherwise plan's pilots run first. */
  readonly forecast?: SweepPlan;
  readonly plugins?: readonly ModelPlugin[];
  readonly onNote?: (line: string) => void;
}

/**
 * The latency profile plan's pilots run behind: the scenario's own (virtual time), else plan's
 * default (a real server: plan's model of one `qwen3-8b-h100-vllm`).
 */
export function forecastProfile(loaded: LoadedScenario): string | undefined {
  const m = loaded.scenario.model;
  return m.backend === 'sim' ? m.latency : undefined;
}

/** Plan's prediction for every run of the sweep (pilots in virtual time; said through `onNote`). */
export async function forecastSweep(loaded: LoadedScenario, input: ScheduleInput): Promise<SweepPlan> {
  if (input.forecast) return input.forecast;
  input.onNote?.(`planning: a pilot of each of ${input.variants.length} variants in virtual time (plan's model)`);
  const swept = applyScenarioPatch(loaded, patchWithout(input.patch ?? {}, ['engine', 'sweepBudget', 'sweep']));
  const latency = forecastProfile(swept);
  return planSweep(swept, {
    variants: input.variants, seeds: input.seeds, ...(latency ? { latency } : {}),
    ...(input.plugins ? { plugins: input.plugins } : {}),
  });
}

/** Each run's forecast by run key (variant/seed). */
export function runForecasts(plan: SweepPlan): Map<string, RunForecast> {
  return new Map(plan.runs.map((r) => [runKey(r.variant, r.seed), { seconds: r.virtualHours * 3600, tasks: r.tasks }]));
}

/** The sweep's priorities for a policy (undefined when off). */
export function prioritiesFor(policy: PriorityPolicy | undefined, plan: SweepPlan | undefined): SweepPriorities | undefined {
  if (policy !== 'critical-path' || !plan) return undefined;
  return new CriticalPathPriorities(runForecasts(plan));
}

/** The sweep's hours by the deadline model with every run at once at in-flight 1 (`plan` prints it). */
export function sharedHours(plan: SweepPlan, priorities: boolean): number {
  return Math.max(0, ...predictSweep(getProfile(plan.profile), runWork(plan.runs, (r) => runKey(r.variant, r.seed)), new Map(), priorities).values());
}

/** A deadline no choice of windows meets: one line, with the shortest time the model found. */
export class DeadlineError extends Error {
  override readonly name = 'DeadlineError';
  constructor(readonly deadlineHours: number, readonly shortestHours: number) {
    super(`--deadline ${deadlineHours} h cannot be met: the shortest this sweep can take is ${shortestHours.toFixed(2)} h (plan's model, every run at its best window)`);
  }
}

/** What `--deadline` decided, as ablation.json and the table carry it. */
export interface DeadlineReport {
  readonly hours: number;
  /** The fluid model's hours for the sweep with the chosen windows. */
  readonly predictedHours: number;
  /** The profile the model used (the scenario's, or plan's default for a real server). */
  readonly profile: string;
  /** Each variant's window, per seed in seed order. */
  readonly windows: Record<string, number[]>;
  /** Settings of the runs with a window over 1. */
  readonly windowed: typeof DEADLINE_RUN_SETTINGS;
}

/**
 * `ablate --deadline`: per run, the smallest window that lets the sweep end by the deadline (deadline-
 * window.ts), as settings per run key; runs that need none keep in-flight 1. Throws DeadlineError when
 * no window can meet it.
 */
export function deadlineSchedule(plan: SweepPlan, deadlineHours: number, priorities: boolean): { settings: Map<string, SweepJob['patch']>; report: DeadlineReport } {
  const profile = getProfile(plan.profile);
  const chosen = chooseWindows(profile, runWork(plan.runs, (r) => runKey(r.variant, r.seed)), deadlineHours, priorities);
  if (!chosen.fits) throw new DeadlineError(deadlineHours, chosen.predictedHours);
  const settings = new Map<string, SweepJob['patch']>();
  const windows: Record<string, number[]> = {};
  const byKey = new Map(chosen.choices.map((c) => [c.key, c.window]));
  for (const r of plan.runs) {
    const w = byKey.get(runKey(r.variant, r.seed)) ?? 1;
    (windows[r.variant] ??= []).push(w);
    settings.set(runKey(r.variant, r.seed), w > 1
      ? { 'engine.inFlight': w, 'engine.staleness.policy': DEADLINE_RUN_SETTINGS.staleness.policy, 'engine.evolveTiming': DEADLINE_RUN_SETTINGS.evolveTiming }
      : { 'engine.inFlight': 1 });
  }
  return { settings, report: { hours: deadlineHours, predictedHours: round(chosen.predictedHours), profile: profile.name, windows, windowed: DEADLINE_RUN_SETTINGS } };
}

/** The choice in one line, said before the sweep starts. */
export function describeDeadline(r: DeadlineReport): string {
  const wide = Object.entries(r.windows).filter(([, ws]) => ws.some((w) => w > 1));
  const rest = Object.keys(r.windows).length - wide.length;
  const parts = wide.map(([v, ws]) => `${v} ${ws.join(',')}`);
  return `deadline ${r.hours} h: predicted ${r.predictedHours.toFixed(2)} h on ${r.profile}; in-flight windows (per seed) ${parts.length ? parts.join(' · ') : 'none needed'}` +
    `${rest > 0 ? `${parts.length ? ' · ' : '; '}${rest} variant${rest === 1 ? '' : 's'} at 1` : ''}; windowed runs: staleness guarded, evolve timing when-ready`;
}

/**
 * The same runs alone at in-flight 1, for the variants that got a window: under the simulator they run
 * in zero time (a run at in-flight 1 gives the summary it gives in virtual time, timing aside), so the
 * comparison costs no server time. Undefined for other backends (their solo runs would cost as much as
 * the sweep: run an ablation at in-flight 1 for them).
 */
export function soloScenario(loaded: LoadedScenario): LoadedScenario | undefined {
  const m = loaded.scenario.model;
  if (m.backend !== 'sim') return undefined;
  const { latency: _latency, ...zeroTime } = m as typeof m & { latency?: string };
  return applyScenarioPatch(loaded, { model: zeroTime, 'structures.speculative': false });
}

const round = (x: number) => Math.round(x * 1000) / 1000;

/** One variant of a deadline sweep against the same variant alone at in-flight 1. */
export interface SoloComparison {
  /** Its window per seed. */
  readonly windows: number[];
  /** Accuracy in the sweep, and alone at in-flight 1 (mean ± sd over the seeds that finished). */
  readonly accuracy: Stat;
  readonly solo: Stat;
  /** True when its solo runs ran (a window over 1); false when every seed was at in-flight 1, which gives the solo summary already. */
  readonly soloRan: boolean;
}

/**
 * Run the solo in-flight-1 runs of the variants that got a window (soloScenario; into
 * `<outDir>/solo-in-flight-1/`) and compare accuracies per variant. Undefined when the backend has no
 * free solo runs.
 */
export async function soloComparison(
  loaded: LoadedScenario, plan: { readonly variants: readonly string[]; readonly seedList: readonly number[]; readonly outDir: string },
  report: DeadlineReport, results: ReadonlyMap<string, RunSummary>, opts: LocalSweepOptions, resume: boolean,
): Promise<Record<string, SoloComparison> | undefined> {
  // The sweep's scenario (its stream and model), run alone in zero time; each run at in-flight 1.
  const solo = soloScenario(applyScenarioPatch(loaded, patchWithout(opts.patch ?? {}, ['engine', 'sweepBudget', 'sweep'])));
  if (!solo) return undefined;
  const windowed = plan.variants.filter((v) => (report.windows[v] ?? []).some((w) => w > 1));
  const jobs = windowed.flatMap((variant) => plan.seedList.map((seed) => ({ variant, seed, outDir: jobDir(path.join(plan.outDir, 'solo-in-flight-1'), variant, seed), patch: { 'engine.inFlight': 1 } })));
  if (jobs.length) opts.onNote?.(`deadline: ${jobs.length} solo runs at in-flight 1 of the windowed variants (zero time) for the accuracy comparison`);
  // The solo runs keep the sweep's worker processes, and nothing else of how it ran.
  const spread = { patch: scenarioPatch({ 'sweep.jobs': applyScenarioPatch(loaded, opts.patch).scenario.sweep?.jobs }), defaultJobs: opts.defaultJobs, childEntry: opts.childEntry, plugins: opts.plugins };
  const ran = jobs.length ? (await runLocalSweep(solo, jobs, spread, resume)).results : new Map<string, RunSummary>();
  const acc = (m: ReadonlyMap<string, RunSummary>, v: string) => plan.seedList.map((s) => m.get(runKey(v, s))?.accuracy).filter((a): a is number => a !== undefined);
  return Object.fromEntries(plan.variants.map((v) => {
    const soloRan = windowed.includes(v);
    return [v, { windows: report.windows[v] ?? [], accuracy: stat(acc(results, v)), solo: stat(acc(soloRan ? ran : results, v)), soloRan }];
  }));
}

/** The deadline's lines for the ablation table: each variant's window and accuracy against it alone at in-flight 1. */
export function formatDeadline(r: DeadlineReport, solo: Record<string, SoloComparison> | undefined, seeds: number): string[] {
  const cell = (s: Stat) => (seeds > 1 ? `${s.mean.toFixed(3)}±${s.sd.toFixed(3)}` : s.mean.toFixed(3));
  const head = `deadline ${r.hours} h (predicted ${r.predictedHours.toFixed(2)} h on ${r.profile}); windowed runs: staleness guarded, evolve timing when-ready`;
  if (!solo) return [head, ...Object.entries(r.windows).map(([v, ws]) => `  ${v}: window ${ws.join(',')}`), '  (no solo in-flight-1 runs over a real server: compare with an ablation at --in-flight 1)'];
  const w = Math.max(8, ...Object.keys(solo).map((v) => v.length));
  return [
    `${head}; accuracy against the same variant alone at in-flight 1:`,
    ...Object.entries(solo).map(([v, c]) => `  ${v.padEnd(w)} window ${c.windows.join(',').padEnd(9)} ${cell(c.accuracy).padStart(13)}  alone at 1 ${cell(c.solo).padStart(13)}  ` +
      (c.soloRan ? `${((c.accuracy.mean - c.solo.mean) * 100 >= 0 ? '+' : '')}${((c.accuracy.mean - c.solo.mean) * 100).toFixed(1)} points` : '(in-flight 1: the same runs)')),
  ];
}
