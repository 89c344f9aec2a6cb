import cliProgress from 'cli-progress';
import type { Progress } from '../engine/loop/engine';
import type { Clock } from '../core/clock';

/** A progress reporter for long runs: a live bar on a terminal, a line per 10 % otherwise. */
export interface ProgressReporter {
  update(p: Progress): void;
  /** Print a line of its own (a watch server's address or error), apart from the bar. */
  log(line: string): void;
  stop(): void;
}

/** Create a reporter writing to stderr (stdout stays clean for `--json`). */
export function createProgress(label: string, total: number, clock: Clock, enabled: boolean): ProgressReporter {
  const plain = (line: string) => { process.stderr.write(`${line}\n`); };
  if (!enabled) return { update: () => {}, log: plain, stop: () => {} };
  const t0 = clock.now();
  const rate = (done: number) => (done / Math.max((clock.now() - t0) / 1000, 1e-3)).toFixed(1);
  if (process.stderr.isTTY) {
    const bar = new cliProgress.SingleBar({
      stream: process.stderr,
      format: `${label} {bar} {value}/{total} tasks | acc {acc} | {rate} tasks/s | eta {eta_formatted}{note}`,
      hideCursor: true,
      clearOnComplete: false,
    }, cliProgress.Presets.shades_classic);
    bar.start(total, 0, { acc: '-', rate: '0', note: '' });
    return {
      update: (p) => bar.update(p.done, { acc: p.accuracy.toFixed(3), rate: rate(p.done), note: p.waiting ? ' | waiting for endpoints' : '' }),
      // Clear the bar's line, print the line, draw the bar again below it.
      log: (line) => { process.stderr.write(`\r\x1b[K${line}\n`); bar.render(); },
      stop: () => bar.stop(),
    };
  }
  let nextMark = 0.1;
  return {
    update: (p) => {
      if (p.waiting !== undefined) {
        process.stderr.write(`${label} ${p.done}/${p.total} tasks | ${p.waiting ? 'waiting for endpoints (no endpoint is healthy; probing)' : 'endpoints are back'}\n`);
        return;
      }
      if (p.done / p.total + 1e-9 < nextMark && p.done !== p.total) return;
      while (nextMark <= p.done / p.total + 1e-9) nextMark += 0.1;
      process.stderr.write(`${label} ${p.done}/${p.total} tasks | acc ${p.accuracy.toFixed(3)} | ${rate(p.done)} tasks/s\n`);
    },
    log: plain,
    stop: () => {},
  };
}
