import type { TokenReport } from '../llm/token-accounting';

/** Per-niche tallies. */
export interface NicheTally {
  tasks: number;
  rewardSum: number;
  correct: number;
}

/**
 * The run summary. Fields are only ever added, never renamed. Everything except `runDir` and
 * `timing` is a deterministic function of scenario and seed under the simulated model.
 */
export interface RunSummary {
  scenario: string;
  variant: string;
  seed: number;
  backend: string;
  inFlight: number;
  tasks: number;
  /** Mean reward over all tasks (exact match for math, pass@1 for code, token F1 for qa), 0–1. */
  accuracy: number;
  /** Share of tasks solved exactly (qa: normalized exact match), 0–1. */
  exactRate: number;
  /** Niche → mean reward. */
  perNiche: Record<string, number>;
  /** Tasks whose run failed (backend exhausted its retries, grader error); counted with reward 0. */
  failures: number;
  agents: { count: number; lessons: number; metaInsights: number };
  reflections: { parsed: number; failed: number };
  tokens: TokenReport;
  poolVersion: number;
  runDir: string;
  /** Wall-clock figures: not part of the deterministic summary. */
  timing: { wallSeconds: number; tasksPerSecond: number };
}

const round = (x: number) => Math.round(x * 1e4) / 1e4;

/** Accumulates task results into a summary. */
export class SummaryBuilder {
  private readonly niches = new Map<string, NicheTally>();
  private failures = 0;
  reflectionsParsed = 0;
  reflectionsFailed = 0;

  constructor(nicheOrder: readonly string[]) {
    for (const n of nicheOrder) this.niches.set(n, { tasks: 0, rewardSum: 0, correct: 0 });
  }

  /** Record one committed task. */
  add(niche: string, reward: number, correct: boolean, failed: boolean): void {
    const t = this.niches.get(niche) ?? { tasks: 0, rewardSum: 0, correct: 0 };
    t.tasks += 1;
    t.rewardSum += reward;
    t.correct += correct ? 1 : 0;
    this.niches.set(niche, t);
    if (failed) this.failures += 1;
  }

  /** Tasks and mean reward so far. */
  progress(): { done: number; accuracy: number } {
    let done = 0;
    let sum = 0;
    for (const t of this.niches.values()) { done += t.tasks; sum += t.rewardSum; }
    return { done, accuracy: done ? sum / done : 0 };
  }

  /** The summary, given the fields only the engine knows. */
  build(rest: Omit<RunSummary, 'tasks' | 'accuracy' | 'exactRate' | 'perNiche' | 'failures' | 'reflections'>): RunSummary {
    let tasks = 0;
    let sum = 0;
    let correct = 0;
    const perNiche: Record<string, number> = {};
    for (const [n, t] of this.niches) {
      tasks += t.tasks;
      sum += t.rewardSum;
      correct += t.correct;
      if (t.tasks > 0) perNiche[n] = round(t.rewardSum / t.tasks);
    }
    const { scenario, variant, seed, backend, inFlight, ...tail } = rest;
    return {
      scenario, variant, seed, backend, inFlight,
      tasks,
      accuracy: tasks ? round(sum / tasks) : 0,
      exactRate: tasks ? round(correct / tasks) : 0,
      perNiche,
      failures: this.failures,
      reflections: { parsed: this.reflectionsParsed, failed: this.reflectionsFailed },
      ...tail,
    };
  }
}
