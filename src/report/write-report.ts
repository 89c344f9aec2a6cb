import { readFileSync, writeFileSync } from 'node:fs';
import { checkOutputDir, claimOutputDir, OutputDirError } from '../store/output-dir';
import path from 'node:path';
import { systemClock, type Clock } from '../core/clock';
import { ablationSummaryMarkdown, buildAblationData, isAblationDir, renderAblationPage } from './ablation-report';
import { buildReportData } from './build-report-data';
import { renderRunPage } from './run-report';
import { runSummaryMarkdown } from './summary-md';
import { EVENTS_FILE } from '../store/events';

/** Options of `writeReport`. */
export interface ReportOptions {
  /** Output directory (default `<run-dir>/report/`: unique to the run, so two reports never collide). */
  readonly outDir?: string;
  /** How the user named `outDir`, for the one-line refusal of a directory evochamber did not write (default `--out`). */
  readonly outFlag?: string;
  /** Stamps `generatedAt` (the only wall-clock figure in a report). */
  readonly clock?: Clock;
  /** Told as the work goes: each event log's bytes read (a run's, or each run's of an ablation), then the charts' rendering. */
  readonly onProgress?: (p: ReportProgress) => void;
}

/** Where `writeReport` is: reading a log (`file`, bytes of its size), or rendering the page. */
export type ReportProgress =
  | { readonly phase: 'read'; readonly file: string; readonly bytesRead: number; readonly totalBytes: number }
  | { readonly phase: 'render' };

/** What `writeReport` wrote. */
export interface ReportResult {
  readonly kind: 'run' | 'ablation';
  readonly outDir: string;
  /** `index.html`, the file to open. */
  readonly indexPath: string;
  readonly dataPath: string;
  readonly summaryPath: string;
  /** Chart compile/render warnings (none expected). */
  readonly chartWarnings: string[];
  /** A run's report: the tasks the log holds committed, of those planned, and whether the run finished. */
  readonly tasks?: { readonly done: number; readonly planned: number; readonly finished: boolean };
}

/** Where a run's (or an ablation's) report goes by default: `report/` inside it, a path no other run shares. */
export function defaultReportDir(runDir: string): string {
  return path.join(path.resolve(runDir), 'report');
}

/** The files a report writes (plus its reproduce scenario file). */
const REPORT_FILES = ['index.html', 'data.json', 'summary.md'] as const;

/**
 * Report a run directory — or an `ablate` output directory (recognised by its `ablation.json`) —
 * as `index.html` (self-contained), `summary.md` and `data.json`. Built from the event log alone
 * plus run.json; never needs the live process. Throws with a clear message when `dir` is neither.
 */
export async function writeReport(dir: string, opts: ReportOptions = {}): Promise<ReportResult> {
  const clock = opts.clock ?? systemClock;
  const outDir = path.resolve(opts.outDir ?? defaultReportDir(dir));
  const flag = opts.outFlag ?? '--out';
  // Before the log is read: a directory of someone else's files is refused at once, and never touched.
  checkOutputDir(outDir, { flag, names: REPORT_FILES });
  refuseOtherRunsReport(outDir, dir, flag);
  if (isAblationDir(dir)) {
    const data = await buildAblationData(dir, clock, outDir, opts.onProgress);
    opts.onProgress?.({ phase: 'render' });
    const page = await renderAblationPage(data);
    claimOutputDir(outDir, { flag, names: [...REPORT_FILES, ...(data.reproduce ? [data.reproduce.scenarioFile] : [])] });
    if (data.reproduce) {
      writeFileSync(path.join(outDir, data.reproduce.scenarioFile), `${JSON.stringify(data.scenarioConfig, null, 2)}\n`);
    }
    return save(outDir, 'ablation', page.html, data, ablationSummaryMarkdown(data), page.chartWarnings);
  }
  const onRead = opts.onProgress ? (bytesRead: number, totalBytes: number) => opts.onProgress!({ phase: 'read', file: path.join(dir, EVENTS_FILE), bytesRead, totalBytes }) : undefined;
  const data = await buildReportData(dir, { clock, outDir, ...(onRead ? { onRead } : {}) });
  opts.onProgress?.({ phase: 'render' });
  const page = await renderRunPage(data);
  claimOutputDir(outDir, { flag, names: [...REPORT_FILES, data.reproduce.scenarioFile] });
  writeFileSync(path.join(outDir, data.reproduce.scenarioFile), `${JSON.stringify(data.run.config, null, 2)}\n`);
  const tasks = { done: data.run.tasksDone, planned: data.run.plannedTasks, finished: data.run.finished };
  return { ...save(outDir, 'run', page.html, data, runSummaryMarkdown(data), page.chartWarnings), tasks };
}

function save(outDir: string, kind: ReportResult['kind'], html: string, data: unknown, md: string, chartWarnings: string[]): ReportResult {
  const indexPath = path.join(outDir, 'index.html');
  const dataPath = path.join(outDir, 'data.json');
  const summaryPath = path.join(outDir, 'summary.md');
  writeFileSync(indexPath, html);
  writeFileSync(dataPath, `${JSON.stringify(data, null, 1)}\n`);
  writeFileSync(summaryPath, md);
  return { kind, outDir, indexPath, dataPath, summaryPath, chartWarnings };
}

/**
 * Never two runs on one report path: a report directory that holds the report of another run (or
 * ablation), by its data.json, is refused; the same run's report is written again.
 */
function refuseOtherRunsReport(outDir: string, dir: string, flag: string): void {
  let reported: string | undefined;
  try {
    const d = JSON.parse(readFileSync(path.join(outDir, 'data.json'), 'utf8')) as { run?: { dir?: string }; dir?: string };
    reported = d.run?.dir ?? d.dir;
  } catch {
    return; // no report there yet (or not one evochamber can read: checkOutputDir judged the files)
  }
  if (reported !== undefined && path.resolve(reported) !== path.resolve(dir)) {
    throw new OutputDirError(`${flag} ${outDir}: holds the report of ${reported}; pick another directory (each run's report has its own)`);
  }
}
