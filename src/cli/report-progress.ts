import type { ReportProgress } from '../report/write-report';

/** Logs smaller than this (all of them together) are read without a word: the report is quick. */
const LONG_LOG_BYTES = 4 * 1024 * 1024;
const STEP = 0.25;

/**
 * Progress of `evochamber report` on stderr, for long logs only: on a terminal one line that keeps
 * its place (share of the bytes read, then "rendering the charts"), elsewhere a line at each
 * quarter. `write` is where it goes (stderr).
 */
export function reportProgress(write: (s: string) => void, tty: boolean): { onProgress: (p: ReportProgress) => void; stop: () => void } {
  const files = new Map<string, { read: number; total: number }>();
  let next = STEP;
  let shown = false;
  const mb = (b: number) => (b / 1024 / 1024).toFixed(1);
  return {
    onProgress: (p) => {
      if (p.phase === 'render') {
        if (shown) write(tty ? '\rreport: rendering the charts…                              ' : 'report: rendering the charts\n');
        return;
      }
      files.set(p.file, { read: p.bytesRead, total: p.totalBytes });
      let read = 0;
      let total = 0;
      for (const f of files.values()) { read += f.read; total += f.total; }
      if (total < LONG_LOG_BYTES || read >= total) return;
      const share = read / total;
      if (tty) write(`\rreport: reading the event log${files.size > 1 ? 's' : ''}: ${Math.floor(100 * share)} % (${mb(read)} of ${mb(total)} MB)`);
      else if (share + 1e-9 >= next) {
        while (next <= share + 1e-9) next += STEP;
        write(`report: reading the event log${files.size > 1 ? 's' : ''}: ${Math.floor(100 * share)} % (${mb(read)} of ${mb(total)} MB)\n`);
      }
      shown = true;
    },
    stop: () => { if (shown && tty) write('\n'); },
  };
}
