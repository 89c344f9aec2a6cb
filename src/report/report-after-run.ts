import type { Clock } from '../core/clock';

/** The `report` option of a run: default on; `false` skips it; `{ outDir }` writes it elsewhere. */
export type RunReportOption = boolean | { readonly outDir?: string };

/** What the engine calls once a run has finished (its `afterRun` option); returns the report's path. */
export type ReportHook = (runDir: string, clock: Clock) => Promise<string | undefined>;

/**
 * The after-run hook that writes a finished run's report (into `outDir`, default `<run-dir>/report/`)
 * and returns the path of its `index.html`. A report that fails never fails the run (its results
 * are already on disk): it emits a process warning naming the command that retries it, and
 * returns undefined.
 */
export function reportAfterRun(outDir?: string, outFlag?: string): ReportHook {
  return async (runDir, clock) => {
    try {
      // Loaded on demand: the charting libraries take a second to load, and many runs skip the report.
      const { writeReport } = await import('./write-report');
      const r = await writeReport(runDir, { clock, outDir, ...(outFlag ? { outFlag } : {}) });
      return r.indexPath;
    } catch (err) {
      process.emitWarning(`the report of ${runDir} failed: ${(err as Error).message}; retry with "evochamber report ${runDir}"`, 'EvoChamberReportWarning');
      return undefined;
    }
  };
}

/**
 * Run options with `report` (default on) turned into the engine's `afterRun` hook; an `afterRun`
 * the caller gives wins. For the package entry, whose `runScenario` and `resumeRun` take `report`.
 */
export function withReport<O extends { readonly report?: RunReportOption; readonly afterRun?: ReportHook }>(opts: O): Omit<O, 'report'> {
  const { report, ...rest } = opts;
  if (report === false || rest.afterRun) return rest;
  return { ...rest, afterRun: reportAfterRun(typeof report === 'object' ? report.outDir : undefined) };
}
