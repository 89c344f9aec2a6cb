import type { RawEvent } from '../../store/events';

/** Task completions (and token counts) kept for the recent rate: the rate is over the last this many. */
const RATE_WINDOW = 50;

/** What a live page shows beside the report's charts: where the run is, how fast it goes, what went wrong. */
export interface LiveFigures {
  /** seq of the last event folded in (-1 before any). */
  readonly seq: number;
  readonly plannedTasks: number | null;
  readonly tasksDone: number;
  readonly graded: number;
  /** Mean team reward over graded tasks so far (null before the first). */
  readonly accuracy: number | null;
  /** Tasks per second over the last tasks (event time stamps), null when unknown. */
  readonly tasksPerSecond: number | null;
  /** Seconds left at that rate, null when unknown or finished. */
  readonly etaSeconds: number | null;
  /** Prompt + completion tokens per second over the same stretch (from the events' token counts), null when unknown. */
  readonly tokensPerSecond: number | null;
  readonly tokens: number;
  /** Tasks started and not yet done. */
  readonly inFlight: number;
  /** The solve window: the last `engine.concurrency` change, else the scenario's `engine.inFlight` (null for "auto" before its first change). */
  readonly window: number | null;
  /** Time-weighted mean of in-flight ÷ window since the first task started (event time stamps), null when unknown. */
  readonly windowUtilization: number | null;
  /** Failed tasks by stage (`task.failed`), failed evolve stages (`evolve.failed`). */
  readonly failures: Readonly<Record<string, number>>;
  readonly evolveFailures: Readonly<Record<string, number>>;
  /** Fallbacks taken, by stage (`stage.fallback`). */
  readonly fallbacks: Readonly<Record<string, number>>;
  /** The last few failures and fallbacks, newest last. */
  readonly recentProblems: readonly string[];
  /** Per agent: status and how often it served in each team role (`team.assembled`). */
  readonly roster: readonly { agentId: string; status: 'active' | 'retired'; roles: Readonly<Record<string, number>>; lastRole: string | null }[];
  /** Run state as the log tells it: running, finished, failed, interrupted. */
  readonly state: string;
}

/**
 * The live page's own figures, folded one event at a time (O(1) per event, bounded memory apart
 * from one record per agent): progress and ETA, throughput, the in-flight window, failures,
 * fallbacks and team roles. The charts come from the report's aggregator; this adds what a report
 * of a finished run does not need.
 */
export class LiveStats {
  private seq = -1;
  private planned: number | null;
  private done = 0;
  private graded = 0;
  private rewardSum = 0;
  private started = 0;
  private tokens = 0;
  private readonly recent: { t: number; done: number; tokens: number }[] = [];
  private window: number | null;
  private busySum = 0;
  private spanSum = 0;
  private lastT: number | null = null;
  private readonly failures: Record<string, number> = {};
  private readonly evolveFailures: Record<string, number> = {};
  private readonly fallbacks: Record<string, number> = {};
  private readonly problems: string[] = [];
  private readonly agents = new Map<string, { status: 'active' | 'retired'; roles: Record<string, number>; lastRole: string | null }>();
  private state = 'running';

  constructor(config: Readonly<Record<string, unknown>>) {
    const c = config as { stream?: { tasks?: number }; engine?: { inFlight?: number | 'auto' } };
    this.planned = c.stream?.tasks ?? null;
    this.window = typeof c.engine?.inFlight === 'number' ? c.engine.inFlight : null;
  }

  /** Fold one event, in log order. */
  add(e: RawEvent): void {
    if (typeof e.seq === 'number') this.seq = e.seq;
    const t = typeof e.time === 'string' ? Date.parse(e.time) / 1000 : Number.NaN;
    if (Number.isFinite(t)) this.advanceTime(t);
    switch (e.type) {
      case 'run.started': if (typeof e.tasks === 'number') this.planned = e.tasks; break;
      case 'run.resumed': this.state = 'running'; break;
      case 'run.finished': this.state = 'finished'; break;
      case 'run.failed': this.state = 'failed'; break;
      case 'run.interrupted': case 'run.budget': this.state = 'interrupted'; break;
      case 'task.started': this.started += 1; break;
      case 'task.done': {
        this.done += 1;
        if (typeof e.reward === 'number') { this.graded += 1; this.rewardSum += e.reward; }
        this.tokens += tokensOf(e.tokens);
        if (Number.isFinite(t)) {
          this.recent.push({ t, done: this.done, tokens: this.tokens });
          if (this.recent.length > RATE_WINDOW) this.recent.shift();
        }
        break;
      }
      case 'evolve.applied': case 'lifecycle.usage': this.tokens += tokensOf(e.tokens); break;
      case 'engine.concurrency': if (e.stage === 'solve' && typeof e.to === 'number') this.window = e.to; break;
      case 'task.failed': this.problem(this.failures, String(e.stage ?? 'other'), `task ${String(e.taskId)} failed at ${String(e.stage)}: ${String(e.error)}`); break;
      case 'evolve.failed': this.problem(this.evolveFailures, String(e.stage ?? 'other'), `evolve of ${String(e.taskId)} failed at ${String(e.stage)}: ${String(e.error)}`); break;
      case 'stage.fallback': this.problem(this.fallbacks, String(e.stage ?? 'other'), `fallback at ${String(e.stage)} (${String(e.taskId)}): ${String(e.cause)}`); break;
      case 'agent.spawned': this.agent(String(e.agentId)).status = 'active'; break;
      case 'agent.retired': this.agent(String(e.agentId)).status = 'retired'; break;
      case 'team.assembled':
        for (const m of (e.members as { agentId: string; role: string }[] | undefined) ?? []) {
          const a = this.agent(m.agentId);
          a.roles[m.role] = (a.roles[m.role] ?? 0) + 1;
          a.lastRole = m.role;
        }
        break;
      default: break;
    }
  }

  /** The figures as of the last event. */
  figures(): LiveFigures {
    const first = this.recent[0];
    const last = this.recent.at(-1);
    const span = first && last ? last.t - first.t : 0;
    const rate = span > 0 ? (last!.done - first!.done) / span : null;
    const tokenRate = span > 0 ? (last!.tokens - first!.tokens) / span : null;
    const left = this.planned === null ? null : Math.max(0, this.planned - this.done);
    return {
      seq: this.seq,
      plannedTasks: this.planned,
      tasksDone: this.done,
      graded: this.graded,
      accuracy: this.graded ? this.rewardSum / this.graded : null,
      tasksPerSecond: rate,
      etaSeconds: left === 0 || this.state !== 'running' ? 0 : rate && left !== null ? left / rate : null,
      tokensPerSecond: tokenRate,
      tokens: this.tokens,
      inFlight: this.started - this.done,
      window: this.window,
      windowUtilization: this.spanSum > 0 ? this.busySum / this.spanSum : null,
      failures: { ...this.failures },
      evolveFailures: { ...this.evolveFailures },
      fallbacks: { ...this.fallbacks },
      recentProblems: [...this.problems],
      roster: [...this.agents].map(([agentId, a]) => ({ agentId, status: a.status, roles: { ...a.roles }, lastRole: a.lastRole })),
      state: this.state,
    };
  }

  /** Integrate in-flight ÷ window over event time, from the first task start on. */
  private advanceTime(t: number): void {
    if (this.lastT !== null && t > this.lastT && this.started > 0 && this.window) {
      const dt = t - this.lastT;
      this.busySum += Math.min(1, (this.started - this.done) / this.window) * dt;
      this.spanSum += dt;
    }
    this.lastT = t;
  }

  private problem(counts: Record<string, number>, stage: string, line: string): void {
    counts[stage] = (counts[stage] ?? 0) + 1;
    this.problems.push(line.length > 200 ? `${line.slice(0, 199)}…` : line);
    if (this.problems.length > 8) this.problems.shift();
  }

  private agent(id: string) {
    let a = this.agents.get(id);
    if (!a) this.agents.set(id, (a = { status: 'active', roles: {}, lastRole: null }));
    return a;
  }
}

function tokensOf(tokens: unknown): number {
  if (typeof tokens !== 'object' || tokens === null) return 0;
  let n = 0;
  for (const u of Object.values(tokens as Record<string, { promptTokens?: number; completionTokens?: number }>)) n += (u.promptTokens ?? 0) + (u.completionTokens ?? 0);
  return n;
}
