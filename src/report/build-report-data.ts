import type { Clock } from '../core/clock';
import { AccuracyCollector, StructureCollector } from './collect/accuracy-collector';
import { CodreamCollector } from './collect/codream-collector';
import { CompetenceCollector, SYNTHETIC_WINDOWS } from './collect/competence-collector';
import { LineageCollector } from './collect/lineage-collector';
import { MetaCollector } from './collect/meta-collector';
import { openRunDirectory, readEventLog, type RunEvent } from './read-events';
import { COST_STAGES, REPORT_DATA_SCHEMA_VERSION, reportDataSchema, type ReportData } from './report-data';
import { reproduceCommands, type ReproducibleConfig } from './reproduce';
import { isReportEventType, REPORT_EVENTS, type ReportEvent, type ReportEventType } from './report-events';

type StageUsage = ReportData['cost']['stages'][number];

/**
 * Build a run's report data from its event log (and `run.json` for the scenario, cost and
 * timing). One pass over the log; a truncated last line is skipped and counted. The result is
 * validated against `reportDataSchema`.
 */
export async function buildReportData(runDir: string, opts: { clock: Clock; outDir: string }): Promise<ReportData> {
  const { dir, run, eventsFile } = await openRunDirectory(runDir);
  const config = run.config as ReproducibleConfig & { stream?: { tasks?: number; niches?: { id: string }[] } };
  const summary = run.summary as SummaryLike | null;

  const competence = new CompetenceCollector();
  const lineage = new LineageCollector();
  const codream = new CodreamCollector();
  const accuracy = new AccuracyCollector();
  const structures = new StructureCollector();
  const meta = new MetaCollector();
  const malformed: Record<string, number> = {};
  const solveTokens = { calls: 0, promptTokens: 0, completionTokens: 0 };
  // Each task's (and lifecycle window's) own calls and tokens, by stage, as its events carry them.
  const eventTokens = new Map<string, Omit<StageUsage, 'stage'>>();
  const addTokens = (tokens: Record<string, { calls: number; promptTokens: number; completionTokens: number }>) => {
    for (const [stage, u] of Object.entries(tokens)) {
      const t = eventTokens.get(stage) ?? { calls: 0, promptTokens: 0, completionTokens: 0 };
      eventTokens.set(stage, { calls: t.calls + u.calls, promptTokens: t.promptTokens + u.promptTokens, completionTokens: t.completionTokens + u.completionTokens });
    }
  };
  let firstTime: number | null = null;
  let lastTime: number | null = null;
  let started: ReportEvent<'run.started'> | null = null;
  let finished = false;
  let tasksDone = 0;
  const plan = (planned: number) => {
    competence.plan(planned);
    structures.plan(Math.ceil(planned / SYNTHETIC_WINDOWS));
  };
  plan(config.stream?.tasks ?? 1);

  const handlers: { [T in ReportEventType]: (e: ReportEvent<T>) => void } = {
    'run.started': (e) => { started = e; plan(e.tasks); },
    'agent.spawned': (e) => { lineage.spawned(e, tasksDone); competence.spawned(e.agentId); },
    'task.started': (e) => accuracy.started(e),
    'meta.report': (e) => meta.report(e),
    'meta.edit': (e) => meta.edit(e),
    'structure.chosen': (e) => structures.chose(e),
    'task.graded': (e) => accuracy.gradedTask(e),
    'task.done': (e) => { tasksDone += 1; competence.taskDone(tasksDone); if (e.tokens) addTokens(e.tokens); },
    'evolve.applied': (e) => { if (e.tokens) addTokens(e.tokens); },
    'lifecycle.usage': (e) => addTokens(e.tokens),
    'competence.updated': (e) => { lineage.ensure(e.agentId, tasksDone); competence.updated(e); },
    'codream.session': (e) => codream.session(e),
    'codream.insight': (e) => codream.insight(e),
    'insight.routed': (e) => codream.routedInsight(e),
    'lifecycle.window': (e) => competence.lifecycleWindow(e, tasksDone),
    'lifecycle.decision': (e) => lineage.decision(e, tasksDone),
    'agent.retired': (e) => { lineage.retired(e, tasksDone); competence.retired(e.agentId); },
    'agent.persona': (e) => lineage.persona(e, tasksDone),
    'attempt': (e) => {
      solveTokens.calls += 1;
      solveTokens.promptTokens += e.promptTokens ?? 0;
      solveTokens.completionTokens += e.completionTokens ?? 0;
    },
  };
  const onEvent = (raw: RunEvent) => {
    const t = typeof raw.time === 'string' ? Date.parse(raw.time) : Number.NaN;
    if (Number.isFinite(t)) { firstTime ??= t; lastTime = t; }
    if (raw.type === 'run.finished') { finished = true; return; }
    if (!isReportEventType(raw.type)) return;
    // The cost fallback is the only use of attempts; skip validating them when run.json has the figures.
    if (raw.type === 'attempt' && summary?.tokens) return;
    const parsed = REPORT_EVENTS[raw.type].safeParse(raw);
    if (!parsed.success) { malformed[raw.type] = (malformed[raw.type] ?? 0) + 1; return; }
    (handlers[raw.type] as (e: unknown) => void)(parsed.data);
  };
  const stats = await readEventLog(eventsFile, onEvent);

  const s = started as ReportEvent<'run.started'> | null;
  const niches = unique([...(config.stream?.niches ?? []).map((n) => n.id), ...accuracy.nicheOrder()]);
  const { agents, lineage: lineageData } = lineage.finish();
  const comp = competence.finish(niches, tasksDone);
  const scenario = s?.scenario ?? config.name ?? 'unknown';
  const variant = s?.variant ?? config.variant ?? 'unknown';
  const seed = s?.seed ?? config.seed ?? 0;
  const plannedTasks = s?.tasks ?? config.stream?.tasks ?? tasksDone;
  const data: ReportData = {
    schemaVersion: REPORT_DATA_SCHEMA_VERSION,
    kind: 'run',
    generatedAt: opts.clock.isoNow(),
    run: {
      id: run.id, dir, status: run.status, createdAt: run.createdAt, scenario, variant, seed,
      backend: summary?.backend ?? null, plannedTasks, tasksDone, finished, config: run.config,
    },
    reproduce: reproduceCommands(config, { scenario, variant, seed, tasks: plannedTasks }, opts.outDir),
    log: { lines: stats.lines, events: stats.events, skippedCount: stats.skippedCount, skipped: stats.skipped, malformed },
    agents,
    niches,
    competence: comp.competence,
    specialists: comp.specialists,
    lineage: lineageData,
    codream: codream.finish(),
    structures: structures.finish(),
    meta: meta.finish(),
    accuracy: accuracy.finish(niches),
    cost: costOf(summary, { eventTokens, solve: solveTokens, codream: codream.tokens, tasksDone, span: spanSeconds(firstTime, lastTime) }),
  };
  return reportDataSchema.parse(data);
}

/** The parts of run.json's summary the report reads; any may be missing in an older or failed run. */
interface SummaryLike {
  backend?: string;
  tokens?: Record<string, { calls: number; promptTokens: number; completionTokens: number }>;
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
