import type { EndpointUsage } from '../llm/openai/endpoint';
import type { TokenReport } from '../llm/token-accounting';

/** Per-niche tallies. */
export interface NicheTally {
  tasks: number;
  rewardSum: number;
  correct: number;
}

/**
 * The run summary. Fields are only ever added, never renamed. Everything except `runDir`,
 * `timing` and `reportPath` is a deterministic function of scenario and seed under the simulated model.
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
  /** Niche → structure → tasks run with it. */
  structures: Record<string, Record<string, number>>;
  /** Share of tasks whose members' final answers were not all equivalent. */
  disagreementRate: number;
  /** LeadLearn: leader replies that could not be used (structure fell back), and bank size. */
  leadlearn: { fallbacks: number; entries: number };
  /** CoDream sessions, insights crystallized, and deliveries to agents. */
  codream: { sessions: number; insights: number; routed: number };
  /** Niche → its specialist at the last lifecycle window (empty: none leads by the margin). */
  specialists: Record<string, string[]>;
  /** (niche, agent) pairs that held the niche for `stableWindows` consecutive windows up to the last. */
  stableSpecialists: number;
  /** Lifecycle decisions applied, by operator. */
  lineage: Record<'genesis' | 'fork' | 'merge' | 'prune' | 'specialize', number>;
  /** Agents ever in the pool (retired included), those still active, and archive sizes over all of them. */
  agents: { count: number; active: number; lessons: number; metaInsights: number };
  reflections: { parsed: number; failed: number };
  tokens: TokenReport;
  poolVersion: number;
  runDir: string;
  /** Wall-clock figures: not part of the deterministic summary. */
  timing: { wallSeconds: number; tasksPerSecond: number };
  /** OpenAI backend only: per-endpoint requests (attempts), retries, failed attempts and tokens, by endpoint name. */
  endpoints?: Record<string, EndpointUsage>;
  /** The run's report (`index.html`), when one was written; not part of the deterministic summary. */
  reportPath?: string;
}

const round = (x: number) => Math.round(x * 1e4) / 1e4;

/** Accumulates task results into a summary. */
export class SummaryBuilder {
  private readonly niches = new Map<string, NicheTally>();
  private failures = 0;
  private readonly structures = new Map<string, Map<string, number>>();
  private disagreements = 0;
  private fallbacks = 0;
  private readonly dreams = { sessions: 0, insights: 0, routed: 0 };
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

  /** Record how one task was worked: its structure, whether members disagreed, whether LeadLearn fell back. */
  addTeamwork(niche: string, structure: string | null, disagreement: boolean, fallback: boolean): void {
    if (structure) {
      const byNiche = this.structures.get(niche) ?? new Map<string, number>();
      byNiche.set(structure, (byNiche.get(structure) ?? 0) + 1);
      this.structures.set(niche, byNiche);
    }
    if (disagreement) this.disagreements += 1;
    if (fallback) this.fallbacks += 1;
  }

  /** Record one CoDream session. */
  addDream(insights: number, routed: number): void {
    this.dreams.sessions += 1;
    this.dreams.insights += insights;
    this.dreams.routed += routed;
  }

  /** Tasks and mean reward so far. */
  progress(): { done: number; accuracy: number } {
    let done = 0;
    let sum = 0;
    for (const t of this.niches.values()) { done += t.tasks; sum += t.rewardSum; }
    return { done, accuracy: done ? sum / done : 0 };
  }

  /** The summary, given the fields only the engine knows. */
  build(rest: Omit<RunSummary, 'tasks' | 'accuracy' | 'exactRate' | 'perNiche' | 'failures' | 'reflections' | 'structures' | 'disagreementRate' | 'leadlearn' | 'codream'> & { leadlearnEntries: number }): RunSummary {
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
    const { scenario, variant, seed, backend, inFlight, leadlearnEntries, ...tail } = rest;
    const structures: Record<string, Record<string, number>> = {};
    for (const n of this.niches.keys()) {
      const byNiche = this.structures.get(n);
      if (byNiche) structures[n] = Object.fromEntries([...byNiche].sort(([a], [b]) => a.localeCompare(b)));
    }
    return {
      scenario, variant, seed, backend, inFlight,
      tasks,
      accuracy: tasks ? round(sum / tasks) : 0,
      exactRate: tasks ? round(correct / tasks) : 0,
      perNiche,
      failures: this.failures,
      reflections: { parsed: this.reflectionsParsed, failed: this.reflectionsFailed },
      structures,
      disagreementRate: tasks ? round(this.disagreements / tasks) : 0,
      leadlearn: { fallbacks: this.fallbacks, entries: leadlearnEntries },
      codream: { ...this.dreams },
      ...tail,
    };
  }
}
