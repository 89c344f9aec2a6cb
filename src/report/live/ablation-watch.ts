import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { message, RunWatch, type RunWatchOptions, type SseClient } from './run-watch';
import { liveAblationData, renderAblationView, type AblationView } from './ablation-compare';
import { buildAblationData, type AblationReportData } from '../ablation-report';
import { RenderThrottle } from './render-throttle';

/** The plan an `ablate` writes first (read for how many runs to expect). */
const PLAN_FILE = 'ablation-plan.json';

/** One run of an ablation as its row on the page. */
export interface AblationRow {
  /** The run's directory name inside the ablation (`<variant>-s<seed>`): its key in the page's URL. */
  readonly name: string;
  readonly state: string;
  readonly tasksDone: number;
  readonly plannedTasks: number | null;
  readonly accuracy: number | null;
}

/** True when `dir` is an ablation's output directory (its plan, or its result, is there). */
export function isAblationWatchDir(dir: string): boolean {
  return existsSync(path.join(dir, PLAN_FILE)) || existsSync(path.join(dir, 'ablation.json'));
}

/**
 * An ablation directory, watched: one `RunWatch` per run directory as each appears (the sweep
 * creates them as it starts them), and a row per run — state, tasks done, accuracy so far —
 * pushed to the pages of the ablation at most every `figuresMs`; above the rows, the ablation
 * report's comparison of the variants, drawn from the runs' logs so far at most every
 * `minRenderMs` (and half the time), only while a page is open.
 */
export class AblationWatch {
  private readonly runs = new Map<string, RunWatch>();
  private readonly clients = new Set<SseClient>();
  private timer: ReturnType<typeof setInterval> | null = null;
  private rowsTimer: ReturnType<typeof setTimeout> | null = null;
  private planned: number | null = null;
  private variants: string[] = [];
  /** The scenario's niches in stream order (the plan's), so the live charts order them as the report does. */
  private niches: string[] = [];
  /** The report's own data, read once the sweep has written ablation.json: the page's last view is the report's. */
  private final: AblationReportData | null = null;
  private view: AblationView | null = null;
  private readonly charts: RenderThrottle;

  constructor(readonly dir: string, private readonly opts: RunWatchOptions) {
    this.charts = new RenderThrottle(opts.clock, opts.minRenderMs ?? 1000, () => this.clients.size > 0, () => this.render());
  }

  /** Find the runs there now, and keep looking for new ones. */
  async start(): Promise<void> {
    try {
      const plan = JSON.parse(readFileSync(path.join(this.dir, PLAN_FILE), 'utf8')) as { variants?: unknown[]; seeds?: number; config?: { stream?: { niches?: { id?: unknown }[] } } };
      this.niches = (plan.config?.stream?.niches ?? []).map((n) => String(n.id));
      if (Array.isArray(plan.variants) && typeof plan.seeds === 'number') {
        this.planned = plan.variants.length * plan.seeds;
        this.variants = plan.variants.map(String);
      }
    } catch { /* an ablation.json alone: the runs on disk are all there is */ }
    await this.scan();
    this.timer = setInterval(() => void this.scan(), this.opts.pollMs ?? 500);
    this.timer.unref?.();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    if (this.rowsTimer) clearTimeout(this.rowsTimer);
    this.charts.stop();
    for (const r of this.runs.values()) r.stop();
    this.clients.clear();
  }

  /** The watch of one run, by its directory name, or null. */
  run(name: string): RunWatch | null {
    return this.runs.get(name) ?? null;
  }

  /** Every run's row, in directory-name order. */
  rows(): AblationRow[] {
    return [...this.runs].sort(([a], [b]) => a.localeCompare(b)).map(([name, w]) => {
      const f = w.figures();
      return { name, state: f?.state ?? 'starting', tasksDone: f?.tasksDone ?? 0, plannedTasks: f?.plannedTasks ?? null, accuracy: f?.accuracy ?? null };
    });
  }

  /** The sweep has ended: its ablation.json is written, or every planned run has finished. */
  finished(): boolean {
    const rows = this.rows();
    return existsSync(path.join(this.dir, 'ablation.json')) || (this.planned !== null && rows.length === this.planned && rows.every((r) => r.state === 'finished'));
  }

  /** Add a page of the ablation table; returns the function that removes it. */
  subscribe(client: SseClient): () => void {
    client.write(this.rowsMessage());
    if (this.view) client.write(message('view', this.view));
    this.clients.add(client);
    this.charts.schedule();
    return () => { this.clients.delete(client); };
  }

  private rowsMessage(): string {
    return message('rows', { dir: this.dir, planned: this.planned, finished: this.finished(), rows: this.rows() });
  }

  private async render(): Promise<void> {
    try {
      const runs = [...this.runs].map(([name, w]) => ({ name, dir: w.dir, trace: w.trace() }));
      const tasks = runs.reduce((a, r) => a + (this.runs.get(r.name)!.figures()?.tasksDone ?? 0), 0);
      const ended = this.finished();
      // At the end, the report's data (its tokens, completion tokens, paired comparison and order), read once.
      if (ended && !this.final && existsSync(path.join(this.dir, 'ablation.json'))) this.final = await buildAblationData(this.dir, this.opts.clock).catch(() => null);
      this.view = await renderAblationView(this.final ?? liveAblationData(this.dir, this.variants, runs, this.opts.clock, ended, this.niches), tasks, ended);
      const chunk = message('view', this.view);
      for (const c of this.clients) c.write(chunk);
    } catch (err) {
      const chunk = message('problem', { message: (err as Error).message });
      for (const c of this.clients) c.write(chunk);
    }
  }

  private async scan(): Promise<void> {
    let names: string[];
    try {
      names = readdirSync(this.dir, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name);
    } catch {
      return;
    }
    for (const name of names) {
      if (this.runs.has(name) || !existsSync(path.join(this.dir, name, 'run.json'))) continue;
      const w = new RunWatch(path.join(this.dir, name), this.opts);
      w.onChange = () => this.scheduleRows();
      this.runs.set(name, w);
      await w.start();
      this.scheduleRows();
    }
  }

  private scheduleRows(): void {
    this.charts.changed();
    if (this.rowsTimer || this.clients.size === 0) return;
    this.rowsTimer = setTimeout(() => {
      this.rowsTimer = null;
      const chunk = this.rowsMessage();
      for (const c of this.clients) c.write(chunk);
    }, this.opts.figuresMs ?? 200);
  }
}
