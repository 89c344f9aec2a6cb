import type { Clock } from '../core/clock';
import { writeReport } from './write-report';

/** The `report` option of a run: default on; `false` skips it; `{ outDir }` writes it elsewhere. */
export type RunReportOption = boolean | { readonly outDir?: string };

/**
 * Write a finished run's report; returns the path of its `index.html`. A report that fails never
 * fails the run (its results are already on disk): it emits a process warning naming the command
 * that retries it, and returns undefined.
 */
export async function reportAfterRun(runDir: string, option: RunReportOption | undefined, clock: Clock): Promise<string | undefined> {
  if (option === false) return undefined;
  try {
    const r = await writeReport(runDir, { clock, outDir: typeof option === 'object' ? option.outDir : undefined });
    return r.indexPath;
  } catch (err) {
    process.emitWarning(`the report of ${runDir} failed: ${(err as Error).message}; retry with "evochamber report ${runDir}"`, 'EvoChamberReportWarning');
    return undefined;
  }
}
