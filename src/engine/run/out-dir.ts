import { readdirSync, statSync } from 'node:fs';
import { RunStore } from '../../store/run-store';

/** `--out` names something a new run cannot be written into: a file, or a directory of other files. */
export class OutDirError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OutDirError';
  }
}

/**
 * Refuse, in one line and before anything is written or probed, an `--out` that names a file or a
 * directory that holds other files and no run (as `git clone` refuses a non-empty directory): a run
 * is never written among a user's files, and `--force` replaces runs only, never other files. A
 * missing or empty directory, or one holding a run (refused or replaced later), passes.
 */
export function checkOutDir(dir: string): void {
  let isDir: boolean;
  try {
    isDir = statSync(dir).isDirectory();
  } catch {
    return; // does not exist yet: it is created
  }
  if (!isDir) throw new OutDirError(`--out ${dir}: is a file, not a directory; pick a directory for the run (a new or empty one)`);
  if (RunStore.exists(dir)) return;
  const entries = readdirSync(dir);
  if (entries.length > 0) {
    const shown = entries.slice(0, 3).join(', ') + (entries.length > 3 ? ', …' : '');
    throw new OutDirError(`--out ${dir}: exists and is not empty (${shown}) and holds no run; pick a new or empty directory (--force replaces runs only, never other files)`);
  }
}
