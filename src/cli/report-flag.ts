import path from 'node:path';
import { reportAfterRun, type ReportHook } from '../report/report-after-run';
import { checkOutputDir } from '../store/output-dir';
import { UsageError } from './usage';

/** parseArgs option spec of `--no-report` and `--report-dir` (run). */
export const REPORT_FLAG_OPTIONS = { 'no-report': { type: 'boolean' }, 'report-dir': { type: 'string' } } as const;

/** Help lines of the two flags. */
export const REPORT_FLAG_HELP = `  --no-report       do not write the HTML report
  --report-dir DIR  where the report goes (default <run-dir>/report/, unique to the run); a
                    directory of files evochamber did not write is refused before the run starts`;

/**
 * The after-run report hook the flags ask for: none with `--no-report`; into `--report-dir`, checked
 * now (a refused directory must not cost a finished run its report), or the default `<run-dir>/report/`.
 */
export function reportHookFromFlags(v: { readonly 'no-report'?: boolean; readonly 'report-dir'?: string }): { afterRun?: ReportHook } {
  const dir = v['report-dir'];
  if (v['no-report']) {
    if (dir !== undefined) throw new UsageError('--report-dir and --no-report contradict each other: drop one');
    return {};
  }
  if (dir === undefined) return { afterRun: reportAfterRun() };
  checkOutputDir(path.resolve(dir), { flag: '--report-dir', names: ['index.html', 'data.json', 'summary.md'] });
  return { afterRun: reportAfterRun(dir, '--report-dir') };
}
