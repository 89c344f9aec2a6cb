import type { Clock } from '../core/clock';
import { planSweep } from '../engine/sweep/plan';
import { applyScenarioPatch } from '../engine/scenario/apply-patch';
import { type ScenarioPatch } from '../core/scenario-patch';
import type { LoadedScenario } from '../engine/scenario/scenario';
import { measureLoad, treeCpuSeconds, type LoadWindow } from '../core/machine-load';

/** Tasks of each variant's pilot for the line `ablate` prints first (plan's smallest pilot). */
const PILOT_TASKS = 24;
/** The pilots may cost at most this share of the sweep; a smaller sweep gets its size alone. */
const PILOT_SHARE = 0.05;
/** Tasks of the unmeasured warm-up before the pilots: what a process pays once (JIT, lazy modules, the sandbox's start). */
const WARM_TASKS = 4;

/** What a sweep is predicted to take: the one line printed before the first run, and each variant's CPU seconds per task. */
export interface SweepEstimate {
  readonly line: string;
  /** Variant → predicted CPU seconds per task here; null when there was no prediction. */
  readonly perTask: ReadonlyMap<string, number> | null;
  /** Tasks per run, with the sweep's patch applied. */
  readonly tasks: number;
}

const dur = (s: number) => (s < 90 ? `${Math.round(s)} s` : s < 5400 ? `${Math.round(s / 60)} min` : `${(s / 3600).toFixed(1)} h`);
const tok = (x: number) => (x >= 1e9 ? `${(x / 1e9).toFixed(2)}G` : x >= 1e6 ? `${(x / 1e6).toFixed(1)}M` : `${(x / 1e3).toFixed(0)}k`);

/**
 * The sweep's size, and with plan's model (a short pilot per variant, engine/plan.ts) its tokens,
 * the CPU time it takes here and, behind a latency profile, its GPU-hours. The pilots run only when
 * they cost at most 5 % of the sweep; `processes` is how many runs go at once on this machine.
 */
export async function estimateSweep(loaded: LoadedScenario, o: { readonly variants: readonly string[]; readonly seeds: number; readonly patch: ScenarioPatch; readonly processes: number }): Promise<SweepEstimate> {
  // The runs' own patch (the sweep's budget is not the scenario's): the pilots run what the sweep runs.
  const patch = Object.fromEntries(Object.entries(o.patch).filter(([k]) => k !== 'sweepBudget'));
  const tasks = applyScenarioPatch(loaded, patch).scenario.stream.tasks;
  const runs = o.variants.length * o.seeds;
  const size = `${runs} run${runs === 1 ? '' : 's'} × ${tasks} tasks = ${(runs * tasks).toLocaleString('en-US')} tasks`;
  const pilotTasks = Math.min(PILOT_TASKS, tasks);
  if (o.variants.length * pilotTasks > PILOT_SHARE * runs * tasks) {
    return { line: `${size} (too small to predict: the pilots would cost more than ${PILOT_SHARE * 100} % of it)`, perTask: null, tasks };
  }
  const model = loaded.scenario.model;
  const latency = model.backend === 'sim' ? (model as { latency?: string }).latency : undefined;
  const how = latency ? { latency } : { zeroTime: true };
  // Two short unmeasured-as-pilot runs of the first variant: the first pays the process's warm-up
  // (the JIT, modules loaded on first use), the second a run's own start (the code sandbox's).
  const warm = Math.min(WARM_TASKS, tasks);
  const short = async () => {
    const c0 = treeCpuSeconds();
    await planSweep(loaded, { variants: o.variants.slice(0, 1), seeds: 1, patch, pilotTasks: warm, ...how });
    return treeCpuSeconds() - c0;
  };
  const [w1, w2] = [await short(), await short()];
  const window = measureLoad();
  const plan = await planSweep(loaded, { variants: o.variants, seeds: o.seeds, patch, pilotTasks, ...how });
  const load = window();
  const cost = splitCosts(plan.runs, o.variants, pilotTasks, warm, w1, w2);
  const perTask = new Map(o.variants.map((v) => [v, cost.perTask.get(v)!] as const));
  const t = plan.total;
  const parts = [`${size}; predicted ${tok(t.promptTokens + t.completionTokens)} tokens`];
  if (model.backend === 'sim') {
    const at = Math.max(1, Math.min(o.processes, runs));
    const cpu = cost.perProcess * at + cost.perRun * runs + o.seeds * o.variants.reduce((a, v) => a + cost.perTask.get(v)! * tasks, 0);
    // The pilots graded every program afresh; a sweep's runs share their verdicts (a program the
    // simulator writes again is not run again), so the code sandbox's share is at most what it was.
    const sandboxShare = load.ownCpuSeconds > 0 ? Math.min(1, load.childrenCpuSeconds / load.ownCpuSeconds) : 0;
    const least = cpu * (1 - sandboxShare);
    const fast = wallRange(least, at, load);
    const wall = wallRange(cpu, at, load);
    const range = (a: number, b: number) => (dur(a) === dur(b) ? dur(a) : `${dur(a)}–${dur(b)}`);
    parts.push(`CPU time here ${range(least, cpu)}${sandboxShare > 0.05 ? ` (the low end if every program is graded once for the sweep)` : ''}, wall ${range(fast.free, wall.busy)}${at > 1 ? ` on ${at} at once` : ''} (from a free machine to the load measured during the pilots: ${load.othersCores.toFixed(1)} of ${load.cores} cores busy elsewhere)`);
  }
  if (latency) parts.push(`${t.virtualHours.toFixed(1)} GPU-hours on ${plan.profile} run after run (${t.hoursAtMaxRate === null ? '–' : t.hoursAtMaxRate.toFixed(2)} h at its max rate)`);
  return { line: `${parts.join(', ')} (from a ${pilotTasks}-task pilot per variant)`, perTask, tasks };
}

/**
 * A run's CPU as a process's warm-up, the run's own start and a cost per task of its variant, from
 * the two short runs of the first variant (`warm` tasks each: the first in a cold process, CPU `w1`;
 * the second warm, `w2`) and each variant's pilot (`pilotTasks`, in `runs`' cpuSeconds per task).
 * Spread over a pilot's few tasks, a run's start would be counted again in every task of a long run.
 */
export function splitCosts(runs: readonly { readonly variant: string; readonly tasks: number; readonly cpuSeconds?: number }[], variants: readonly string[], pilotTasks: number, warm: number, w1: number, w2: number) {
  const pilot = (v: string) => {
    const r = runs.find((x) => x.variant === v);
    return r && r.tasks > 0 ? ((r.cpuSeconds ?? 0) / r.tasks) * pilotTasks : 0;
  };
  // w2 = start + warm·p and pilot = start + pilotTasks·p for the first variant.
  const p0 = pilotTasks > warm ? Math.max(0, (pilot(variants[0]!) - w2) / (pilotTasks - warm)) : pilot(variants[0]!) / Math.max(1, pilotTasks);
  const perRun = Math.max(0, w2 - warm * p0);
  const perProcess = Math.max(0, w1 - w2);
  const perTask = new Map(variants.map((v) => [v, Math.max(0, (pilot(v) - perRun) / Math.max(1, pilotTasks))]));
  return { perProcess, perRun, perTask };
}

/**
 * Wall seconds for `cpuSeconds` of work spread over `at` processes at once (the sweep's workers:
 * each a process of its own), from the cores left to them: all of them on a free machine, and what
 * the rest of the machine left free while the pilots ran. Processes beyond the free cores share
 * them; the pilots measured the CPU per task, children included, so only the sharing is modelled.
 */
export function wallRange(cpuSeconds: number, at: number, load: LoadWindow): { free: number; busy: number } {
  const free = cpuSeconds / Math.max(1, Math.min(at, load.cores));
  const left = Math.max(0.25, load.cores - load.othersCores);
  return { free, busy: Math.max(free, cpuSeconds / Math.min(at, left)) };
}

/**
 * The sweep's overall progress and ETA, from measured rates: the share of the sweep's predicted
 * work done so far (each task weighted by its variant's predicted CPU time per task, or equally
 * without a prediction) over the time it took.
 */
export class SweepEta {
  private readonly done = new Map<string, { variant: string; tasks: number }>();
  private readonly started: number;

  constructor(
    private readonly runs: readonly { readonly variant: string; readonly tasks: number }[],
    private readonly perTask: ReadonlyMap<string, number> | null,
    private readonly clock: Clock,
  ) {
    this.started = clock.now();
  }

  /** A run's tasks done so far. */
  update(variant: string, seed: number, tasksDone: number): void {
    this.done.set(`${variant}\u0000${seed}`, { variant, tasks: tasksDone });
  }

  /** Share of the sweep's work done, 0–1. */
  fraction(): number {
    const w = (v: string) => this.perTask?.get(v) ?? 1;
    const total = this.runs.reduce((a, r) => a + w(r.variant) * r.tasks, 0);
    const done = [...this.done.values()].reduce((a, r) => a + w(r.variant) * r.tasks, 0);
    return total > 0 ? Math.min(1, done / total) : 0;
  }

  /** Seconds left at the rate measured so far, or null before there is a rate. */
  secondsLeft(): number | null {
    const f = this.fraction();
    const elapsed = (this.clock.now() - this.started) / 1000;
    if (f < 0.005 || elapsed < 2) return null;
    return (elapsed * (1 - f)) / f;
  }

  /** `sweep 34 % · ETA 12 min` (or `ETA –` before there is a rate). */
  describe(): string {
    const left = this.secondsLeft();
    return `sweep ${Math.floor(100 * this.fraction())} % · ETA ${left === null ? '–' : dur(left)}`;
  }
}
