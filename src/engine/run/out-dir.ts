import { JOURNAL_FILE } from '../../llm/request-journal';
import { EVENTS_FILE } from '../../store/events';
import { RunStore } from '../../store/run-store';
import { checkOutputDir, recordOutputDir } from '../../store/output-dir';

/** What a run writes into its directory (store/output-dir.ts): its files, and its report and export folders. */
export const RUN_OUTPUTS: readonly string[] = ['run.json', EVENTS_FILE, JOURNAL_FILE, 'run.lock', 'report', 'export'];

/**
 * Refuse, in one line and before anything is written or probed, an `--out` that names a file or a
 * directory of files evochamber did not write (as `git clone` refuses a non-empty directory): a run
 * is never written among a user's files, and `--force` replaces a run's own files only. A missing
 * or empty directory, or one holding a run (refused or replaced later), passes.
 */
export function checkOutDir(dir: string): void {
  checkOutputDir(dir, { flag: '--out', names: RUN_OUTPUTS, ownedBefore: (d) => RunStore.exists(d) });
}

/** Mark `dir` as the run's (its manifest names the run's files), just before the run is written. */
export function recordRunDir(dir: string): void {
  recordOutputDir(dir, RUN_OUTPUTS);
}
