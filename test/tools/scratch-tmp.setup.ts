import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/**
 * Vitest global setup: every temporary file of the suite goes under one directory of its own, made
 * here and removed when the suite ends, so a run of the suite leaves nothing in the machine's /tmp
 * (it used to leave several hundred run, report and sandbox directories a run). TMPDIR is what
 * Node's `os.tmpdir()`, Python's `tempfile`, Chromium and the sandbox read; the test workers, and
 * every process they start, inherit it. `EVO_KEEP_TEST_TMP=1` keeps the directory to look into.
 */
export default function setup(): () => void {
  const dir = mkdtempSync(path.join(tmpdir(), 'evo-suite-'));
  // Like /tmp itself (sticky, world-writable): fallback-mode candidates run under another uid,
  // and their temp directories are made beneath it.
  chmodSync(dir, 0o1777);
  const before = process.env.TMPDIR;
  process.env.TMPDIR = dir;
  return () => {
    if (before === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = before;
    if (process.env.EVO_KEEP_TEST_TMP) console.log(`the suite's temporary files are kept in ${dir}`);
    else rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
  };
}
