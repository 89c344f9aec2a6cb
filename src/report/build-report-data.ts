import type { Clock } from '../core/clock';
import { AccuracyCollector, StructureCollector } from './collect/accuracy-collector';
import { CodreamCollector } from './collect/codream-collector';
import { CompetenceCollector, SYNTHETIC_WINDOWS } from './collect/competence-collector';
import { LineageCollector } from './collect/lineage-collector';
import { MetaCollector } from './collect/meta-collector';
import { openRunDirectory } from './read-events';
import { checkEvent, readRunEvents, type EventOf, type EventType, type RawEvent, type ReadProgress, type ReadStats } from '../store/events';
import type { RunFile } from '../store/run-store';
import { COST_STAGES, REPORT_DATA_SCHEMA_VERSION, reportDataSchema, type ReportData } from './report-data';
import { reproduceCommands } from './reproduce';

/** The event types the report draws (each checked against the catalogue before it is folded). */
const REPORT_TYPES = [
  'run.started', 'agent.spawned', 'task.started', 'meta.report', 'meta.edit', 'structure.chosen', 'task.graded', 'task.done',
  'evolve.applied', 'lifecycle.usage', 'competence.updated', 'codream.session', 'codream.insight', 'insight.routed',
  'lifecycle.window', 'lifecycle.decision', 'agent.retired', 'agent.persona', 'attempt',
] as const satisfies readonly EventType[];
type ReportEventType = (typeof REPORT_TYPES)[number];
const REPORTED: ReadonlySet<string> = new Set(REPORT_TYPES);

type StageUsage = ReportData['cost']['stages'][number];

/**
 * Build a run's report data from its event log (and `run.json` for the scenario, cost and
 * timing). One pass over the log; a truncated last line is skipped and counted. The result is
 * validated against `reportDataSchema`.
 */
export async function buildReportData(runDir: string, opts: { clock: Clock; outDir: string; onRead?: ReadProgress }): Promise<ReportData> {
  const { dir, run } = await openRunDirectory(runDir);
  const agg = new ReportAggregator(run);
  const stats = await readRunEvents(dir, opts.onRead ? { onProgress: opts.onRead } : {}).forEach((e) => agg.add(e));
  return agg.data({ dir, run, stats, clock: opts.clock, outDir: opts.outDir });
}

/**
 * The report's data, kept up to date one event at a time: the one fold of the event log that
 * both the written report and the live watch page draw from. Each event costs O(1) amortized
 * (plus the collectors' own bookkeeping); `data()` builds the current `ReportData` from the
 * aggregated state, never from the log, so it can be called as often as a page needs.
 */
export class ReportAggregator {
  private readonly competence = new CompetenceCollector();
  private readonly lineage = new LineageCollector();
  private readonly codream = new CodreamCollector();
  private readonly accuracy = new AccuracyCollector();
  private readonly structures = new StructureCollector();
  private readonly meta = new MetaCollector();
  private readonly malformed: Record<string, number> = {};
  private readonly solveTokens = { calls: 0, promptTokens: 0, completionTokens: 0 };
  /** Each task's (and lifecycle window's) own calls and tokens, by stage, as its events carry them. */
  private readonly eventTokens = new Map<string, Omit<StageUsage, 'stage'>>();
  private firstTime: number | null = null;
  private lastTime: number | null = null;
  private started: EventOf<'run.started'> | null = null;
  private finished = false;
  private tasksDone = 0;
  /** Attempts are read only for the cost fallback: skipped when run.json's summary has the figures. */
  private readonly skipAttempts: boolean;
  private readonly handlers: { [T in ReportEventType]: (e: EventOf<T>) => void };

  /** `run` is run.json as the fold starts: its planned task count, and whether its summary already has the token figures. */
  constructor(run: Readonly<RunFile>) {
    const c = run.config as { stream?: { tasks?: number } };
    this.skipAttempts = Boolean((run.summary as SummaryLike | null)?.tokens);
    this.plan(c.stream?.tasks ?? 1);
    const { competence, lineage, codream, accuracy, structures, meta } = this;
    this.handlers = {
      'run.started': (e) => { this.started = e; this.plan(e.tasks); },
      'agent.spawned': (e) => { lineage.spawned(e, this.tasksDone); competence.spawned(e.agentId); },
      'task.started': (e) => accuracy.started(e),
      'meta.report': (e) => meta.report(e),
      'meta.edit': (e) => meta.edit(e),
      'structure.chosen': (e) => structures.chose(e),
      'task.graded': (e) => accuracy.gradedTask(e),
      'task.done': (e) => { this.tasksDone += 1; competence.taskDone(this.tasksDone); if (e.tokens) this.addTokens(e.tokens); },
      'evolve.applied': (e) => { if (e.tokens) this.addTokens(e.tokens); },
      'lifecycle.usage': (e) => this.addTokens(e.tokens),
      'competence.updated': (e) => { lineage.ensure(e.agentId, this.tasksDone); competence.updated(e); },
      'codream.session': (e) => codream.session(e),
      'codream.insight': (e) => codream.insight(e),
      'insight.routed': (e) => codream.routedInsight(e),
      'lifecycle.window': (e) => competence.lifecycleWindow(e, this.tasksDone),
      'lifecycle.decision': (e) => lineage.decision(e, this.tasksDone),
      'agent.retired': (e) => { lineage.retired(e, this.tasksDone); competence.retired(e.agentId); },
      'agent.persona': (e) => lineage.persona(e, this.tasksDone),
      'attempt': (e) => {
        this.solveTokens.calls += 1;
        this.solveTokens.promptTokens += e.promptTokens ?? 0;
        this.solveTokens.completionTokens += e.completionTokens ?? 0;
      },
    };
  }

  /** Tasks finished so far (`task.done` events). */
  get done(): number {
    return this.tasksDone;
  }

  /** Fold one event (in log order) into the state. Never throws: a malformed report event is counted. */
  add(raw: RawEvent): void {
    const t = typeof raw.time === 'string' ? Date.parse(raw.time) : Number.NaN;
    if (Number.isFinite(t)) { this.firstTime ??= t; this.lastTime = t; }
    if (raw.type === 'run.finished') { this.finished = true; return; }
    if (!REPORTED.has(raw.type)) return;
    const type = raw.type as ReportEventType;
    if (type === 'attempt' && this.skipAttempts) return;
    const parsed = checkEvent(type, raw);
    if (!parsed) { this.malformed[type] = (this.malformed[type] ?? 0) + 1; return; }
    (this.handlers[type] as (e: unknown) => void)(parsed);
  }

  /** The report data as of the events added so far, with `run.json` as it is now. */
  data(at: { dir: string; run: Readonly<RunFile>; stats: ReadStats; clock: Clock; outDir: string }): ReportData {
    const { dir, run, stats } = at;
    const config = run.config as { name?: string; variant?: string; seed?: number; stream?: { tasks?: number; niches?: { id: string }[] }; model?: { backend?: string } };
    const summary = run.summary as SummaryLike | null;
    const tasksDone = this.tasksDone;
    const s = this.started;
    const niches = unique([...(config.stream?.niches ?? []).map((n) => n.id), ...this.accuracy.nicheOrder()]);
    const { agents, lineage: lineageData } = this.lineage.finish();
    const comp = this.competence.finish(niches, tasksDone);
    const scenario = s?.scenario ?? config.name ?? 'unknown';
    const variant = s?.variant ?? config.variant ?? 'unknown';
    const seed = s?.seed ?? config.seed ?? 0;
    const plannedTasks = s?.tasks ?? config.stream?.tasks ?? tasksDone;
    const data: ReportData = {
      schemaVersion: REPORT_DATA_SCHEMA_VERSION,
      kind: 'run',
      generatedAt: at.clock.isoNow(),
      run: {
        id: run.id, dir, status: run.status, createdAt: run.createdAt, scenario, variant, seed,
        // A crashed run has no summary: its scenario still says which backend it ran on.
        backend: summary?.backend ?? config.model?.backend ?? null, plannedTasks, tasksDone, finished: this.finished, config: run.config,
      },
      reproduce: reproduceCommands({ scenario, patch: run.patch }, at.outDir),
      log: { lines: stats.lines, events: stats.events, skippedCount: stats.skippedCount, skipped: stats.skipped, malformed: { ...this.malformed } },
      agents,
      niches,
      competence: comp.competence,
      specialists: comp.specialists,
      lineage: lineageData,
      codream: this.codream.finish(),
      structures: this.structures.finish(),
      meta: this.meta.finish(),
      accuracy: this.accuracy.finish(niches),
      cost: costOf(summary, { eventTokens: this.eventTokens, solve: this.solveTokens, codream: this.codream.tokens, tasksDone, span: spanSeconds(this.firstTime, this.lastTime) }),
    };
    return reportDataSchema.parse(data);
  }

  private plan(planned: number): void {
    this.competence.plan(planned);
    this.structures.plan(Math.ceil(planned / SYNTHETIC_WINDOWS));
  }

  private addTokens(tokens: Record<string, TokenCounts>): void {
    for (const [stage, u] of Object.entries(tokens)) {
      const t = this.eventTokens.get(stage) ?? { calls: 0, promptTokens: 0, completionTokens: 0 };
      const truncated = (t.truncated ?? 0) + (typeof u.truncated === 'number' ? u.truncated : 0);
      this.eventTokens.set(stage, { calls: t.calls + u.calls, promptTokens: t.promptTokens + u.promptTokens, completionTokens: t.completionTokens + u.completionTokens, ...(truncated ? { truncated } : {}) });
    }
  }
}

/** A stage's calls and tokens as a summary or an event carries them (`truncated` only when some reply was). */
interface TokenCounts { calls: number; promptTokens: number; completionTokens: number; truncated?: number }

/** The parts of run.json's summary the report reads; any may be missing in an older or failed run. */
interface SummaryLike {
  backend?: string;
  tokens?: Record<string, TokenCounts>;
  timing?: { wallSeconds: number; tasksPerSecond: number };
}

/** What the events say about cost, for a run whose run.json has no summary (crashed, or still running). */
interface EventCost {
  /** Calls and tokens by stage from `task.done` / `evolve.applied` / `lifecycle.usage` events (empty in logs made before they carried them). */
  readonly eventTokens: ReadonlyMap<string, Omit<StageUsage, 'stage'>>;
  /** Older logs: solve tokens from attempts and CoDream's from its sessions. */
  readonly solve: Omit<StageUsage, 'stage'>;
  readonly codream: Omit<StageUsage, 'stage'>;
  readonly tasksDone: number;
  /** Seconds from the first to the last event's time stamp, or null. */
  readonly span: number | null;
}

function costOf(summary: SummaryLike | null, ev: EventCost): ReportData['cost'] {
  const byStage = new Map<string, Omit<StageUsage, 'stage'>>();
  const fromSummary = Boolean(summary?.tokens);
  if (summary?.tokens) {
    for (const [stage, u] of Object.entries(summary.tokens)) if (stage !== 'total') byStage.set(stage, u);
  } else if (ev.eventTokens.size > 0) {
    for (const [stage, u] of ev.eventTokens) byStage.set(stage, u);
  } else {
    byStage.set('solve', ev.solve);
    byStage.set('codream', ev.codream);
  }
  const order = unique([...COST_STAGES, ...byStage.keys()]);
  const wallSeconds = summary?.timing?.wallSeconds ?? ev.span;
  const tasksPerSecond = summary?.timing?.tasksPerSecond ?? (ev.span ? Number((ev.tasksDone / ev.span).toFixed(3)) : null);
  return {
    source: fromSummary ? 'summary' : 'events',
    stages: order.map((stage) => ({ stage, calls: 0, promptTokens: 0, completionTokens: 0, ...byStage.get(stage) })),
    wallSeconds,
    tasksPerSecond,
  };
}

function spanSeconds(first: number | null, last: number | null): number | null {
  return first === null || last === null || last <= first ? null : (last - first) / 1000;
}

function unique(xs: readonly string[]): string[] {
  return [...new Set(xs)];
}
