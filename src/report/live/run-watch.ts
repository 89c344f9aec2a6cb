import { existsSync } from 'node:fs';
import path from 'node:path';
import { eventsFileOf } from '../../store/events';
import type { Clock } from '../../core/clock';
import { RunStore, type RunFile } from '../../store/run-store';
import { ReportAggregator } from '../build-report-data';
import { renderSections } from '../html/page';
import type { ReportData } from '../report-data';
import { logWarnings, runSections } from '../run-report';
import { EventTail, type TailedEvent } from './event-tail';
import { LiveStats, type LiveFigures } from './live-stats';
import { rosterSection } from './roster-section';
import { RenderThrottle } from './render-throttle';
import { RunTraceCollector, type RunTrace } from '../collect/run-trace-collector';

/** Where a page's Server-Sent Events go: one write per message group. */
export interface SseClient {
  write(chunk: string): void;
}

/** The charts as last rendered, and the figures they were drawn at. */
export interface RenderedView {
  readonly seq: number;
  /** Tasks done when the charts were drawn: the N of their titles' "so far (after N tasks)". */
  readonly tasksDone: number;
  /** `scenario · variant · seed N`, as the report's title says it. */
  readonly title: string;
  readonly html: string;
  readonly warnings: readonly string[];
}

/** Options of a run's watch. */
export interface RunWatchOptions {
  readonly clock: Clock;
  /** Least time between two renders of the charts (default 1000 ms). */
  readonly minRenderMs?: number;
  /** Least time between two `figures` messages (default 200 ms). */
  readonly figuresMs?: number;
  /** Fallback poll of the log's size (default 500 ms). */
  readonly pollMs?: number;
}

/** Sections of the live page drawn from the report's data (the report's own, bar the reproduce commands). */
const LIVE_SECTIONS: ReadonlySet<string> = new Set(['competence', 'specialists', 'lineage', 'codream', 'structures', 'accuracy', 'procedure', 'cost']);

/**
 * One run directory, watched: tails its event log, folds every committed event into the report's
 * aggregator and the live figures, and pushes to every subscribed page — each event at once (SSE,
 * `id` = its seq), the figures at most every `figuresMs`, and the charts, rendered from the
 * aggregated state by the report's own chart code, at most every `minRenderMs` (and half
 * the time) and only while a page is open. Pages never read the log; the charts cost the same with one page or ten.
 */
export class RunWatch {
  private tail: EventTail | null = null;
  private agg: ReportAggregator | null = null;
  private stats: LiveStats | null = null;
  /** The fold an ablation's comparison reads (rewards in order, tokens, CoDream and lifecycle counts). */
  private readonly traceFold = new RunTraceCollector();
  private run: Readonly<RunFile> | null = null;
  private readonly clients = new Set<SseClient>();
  private view: RenderedView | null = null;
  private readonly charts: RenderThrottle;
  private figuresTimer: ReturnType<typeof setTimeout> | null = null;
  private lastFiguresAt = Number.NEGATIVE_INFINITY;
  private waitTimer: ReturnType<typeof setInterval> | null = null;
  private stopped = false;
  /** Called after each batch of new events (the ablation view listens). */
  onChange: (() => void) | null = null;

  constructor(readonly dir: string, private readonly opts: RunWatchOptions) {
    this.charts = new RenderThrottle(opts.clock, opts.minRenderMs ?? 1000, () => this.clients.size > 0 && this.agg !== null, () => this.render());
  }

  /** Start once run.json exists (a run being created is waited for); resolves when the log on disk has been read. */
  async start(): Promise<void> {
    while (!existsSync(path.join(this.dir, 'run.json'))) {
      if (this.stopped) return;
      await new Promise<void>((resolve) => { this.waitTimer = setTimeout(resolve, this.opts.pollMs ?? 500); });
    }
    this.run = (await RunStore.open(this.dir)).data;
    this.agg = new ReportAggregator(this.run);
    this.stats = new LiveStats(this.run.config);
    this.tail = new EventTail(eventsFileOf(this.dir), { pollMs: this.opts.pollMs });
    if (this.stopped) return;
    this.tail.start((batch) => this.onBatch(batch));
  }

  /** Stop following the log and end every timer (pages stay connected to the server, which closes them). */
  stop(): void {
    this.stopped = true;
    this.tail?.stop();
    this.charts.stop();
    for (const t of [this.figuresTimer, this.waitTimer]) if (t) clearTimeout(t);
    this.clients.clear();
  }

  /**
   * The run has ended (its process is gone): read the log to its end and tell every page how it
   * ended — the log's `finished`, `failed` or `interrupted`, else `fallback` (a process that ended
   * without writing how: `crashed`) — as the last figures and an `end` message. Returns that state.
   */
  end(fallback: string): string {
    this.tail?.check();
    const figures = this.stats?.figures() ?? null;
    const state = figures && figures.state !== 'running' ? figures.state : fallback;
    const chunk = (figures ? message('figures', { ...figures, state, etaSeconds: 0 }) : '') + message('end', { state });
    for (const c of this.clients) c.write(chunk);
    return state;
  }

  /** The live figures now, or null before run.json exists. */
  figures(): LiveFigures | null {
    return this.stats?.figures() ?? null;
  }

  /** The run's trace for a comparison of variants, as of the events read so far. */
  trace(): RunTrace {
    return this.traceFold.trace();
  }

  /** run.json as last read (status, summary), or null. */
  runFile(): Readonly<RunFile> | null {
    return this.run;
  }

  /**
   * Add a page. With `lastEventId` (a reconnect) it first gets exactly the events after it, re-read
   * from the log; without, a `hello` that sets its position to the last event (it draws history from
   * the charts, never from a replay of the log). Then the figures and the last charts, and from then
   * on every new event. Returns the function that removes it.
   */
  subscribe(client: SseClient, lastEventId: number | null): () => void {
    if (this.tail) {
      if (lastEventId === null) client.write(`id: ${this.tail.seq}\nevent: hello\ndata: ${JSON.stringify({ seq: this.tail.seq })}\n\n`);
      else {
        const missed = this.tail.since(lastEventId);
        if (missed.length) client.write(eventMessages(missed));
      }
      client.write(message('figures', this.stats!.figures()));
    } else {
      client.write(`event: waiting\ndata: ${JSON.stringify({ dir: this.dir })}\n\n`);
    }
    if (this.view) client.write(message('view', this.view));
    this.clients.add(client);
    this.charts.schedule();
    return () => { this.clients.delete(client); };
  }

  private onBatch(batch: TailedEvent[]): void {
    for (const e of batch) {
      this.agg!.add(e.event);
      this.stats!.add(e.event);
      this.traceFold.add(e.event);
    }
    if (this.clients.size) {
      const chunk = eventMessages(batch);
      for (const c of this.clients) c.write(chunk);
    }
    this.scheduleFigures();
    this.charts.changed();
    this.onChange?.();
  }

  private scheduleFigures(): void {
    if (this.figuresTimer || this.clients.size === 0) return;
    const wait = Math.max(0, this.lastFiguresAt + (this.opts.figuresMs ?? 200) - this.opts.clock.now());
    this.figuresTimer = setTimeout(() => {
      this.figuresTimer = null;
      this.lastFiguresAt = this.opts.clock.now();
      const chunk = message('figures', this.stats!.figures());
      for (const c of this.clients) c.write(chunk);
    }, wait);
  }

  private async render(): Promise<void> {
    if (this.stopped || !this.agg) return;
    try {
      // run.json changes with the run's status (finished, interrupted, resumed): read it again.
      this.run = (await RunStore.open(this.dir)).data;
      const { events, lines, skippedCount, unknown } = this.tail!.stats;
      const data = this.agg.data({ dir: this.dir, run: this.run, stats: { events, lines, skippedCount, unknown, skipped: [] }, clock: this.opts.clock, outDir: path.join(this.dir, 'report') });
      this.view = await renderView(data, this.stats!.figures());
      const chunk = message('view', this.view);
      for (const c of this.clients) c.write(chunk);
    } catch (err) {
      const chunk = message('problem', { message: (err as Error).message });
      for (const c of this.clients) c.write(chunk);
    }
  }
}

/** The charts of a live page, from the report's data: the roster first, then the report's sections. */
async function renderView(data: ReportData, figures: LiveFigures): Promise<RenderedView> {
  const sections = [rosterSection(data, figures), ...runSections(data).filter((s) => LIVE_SECTIONS.has(s.id))];
  const { html } = await renderSections(sections);
  return { seq: figures.seq, tasksDone: data.run.tasksDone, title: `${data.run.scenario} · ${data.run.variant} · seed ${data.run.seed}`, html, warnings: logWarnings(data, { live: true }) };
}

/** SSE messages of a batch of events: `id` = seq, `event: ev`, the logged line as data. */
function eventMessages(batch: readonly TailedEvent[]): string {
  let out = '';
  for (const e of batch) out += `id: ${e.seq}\nevent: ev\ndata: ${e.line}\n\n`;
  return out;
}

/** An SSE message with no id (so a page's Last-Event-ID stays the last event's seq). */
export function message(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}
