import cliProgress from 'cli-progress';
import type { Progress } from '../engine/loop/engine';
import type { Clock } from '../core/clock';

/** A progress reporter for long runs: a live bar on a terminal, plain lines otherwise. */
export interface ProgressReporter {
  update(p: Progress): void;
  /** Print a line of its own (a watch server's address or error), apart from the bar. */
  log(line: string): void;
  stop(): void;
}

/** Off a terminal: a line while a resume replays its log, at most this often (so one shows within 2 s). */
const REPLAY_LINE_MS = 1_000;
/** Off a terminal: a line at least this often while tasks commit, between the 10 % marks (a very long stream). */
const QUIET_LINE_MS = 30_000;

/**
 * A run's pace, as a reporter shows it: the rate and ETA count only new work (tasks past what a
 * resume's log held), measured once there is some, so a replay's burst or a stream's first task
 * never gives "eta NFs" or hours for minutes.
 */
class Pace {
  private newSince: { t: number; done: number } | undefined;
  constructor(private readonly clock: Clock, private readonly t0 = clock.now()) {}

  /** Tasks per second: of the replay while it goes, then of the new tasks. */
  rate(p: Progress): string {
    this.mark(p);
    if (this.replaying(p) || !this.newSince) return (p.done / Math.max((this.clock.now() - this.t0) / 1000, 1e-3)).toFixed(1);
    return (this.newDone(p) / Math.max((this.clock.now() - this.newSince.t) / 1000, 1e-3)).toFixed(1);
  }

  /** The time left at the new tasks' rate; `-` until 2 new tasks over 2 s say what it is. */
  eta(p: Progress): string {
    this.mark(p);
    if (!this.newSince) return '-';
    const seconds = (this.clock.now() - this.newSince.t) / 1000;
    const done = this.newDone(p);
    if (done < 2 || seconds < 2) return '-';
    return formatEta(((p.total - p.done) * seconds) / done);
  }

  replaying(p: Progress): boolean {
    return p.logged !== undefined && p.done < p.logged;
  }

  /** New work starts at the first task past the log (a resume) or at the start (a new run). */
  private mark(p: Progress): void {
    if (this.newSince || this.replaying(p)) return;
    this.newSince = p.logged ? { t: this.clock.now(), done: p.done } : { t: this.t0, done: 0 };
  }

  private newDone(p: Progress): number {
    return p.done - (this.newSince?.done ?? p.done);
  }
}

/** A duration for an ETA: `42s`, `12m05s`, `5h03m`, `12d`, or `>999d` for a stream that will not end in this lifetime. */
export function formatEta(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return '-';
  const s = Math.round(seconds);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  if (s < 100 * 3600) return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
  const days = Math.round(s / 86_400);
  return days > 999 ? '>999d' : `${days}d`;
}

/** Create a reporter writing to stderr (stdout stays clean for `--json`). */
export function createProgress(label: string, total: number, clock: Clock, enabled: boolean): ProgressReporter {
  const plain = (line: string) => { process.stderr.write(`${line}\n`); };
  if (!enabled) return { update: () => {}, log: plain, stop: () => {} };
  const pace = new Pace(clock);
  const head = (p: Progress) => (pace.replaying(p) ? `${label}: replaying the log` : label);
  return process.stderr.isTTY ? barReporter(label, total, pace, head) : lineReporter(label, clock, pace, head, plain);
}

function barReporter(label: string, total: number, pace: Pace, head: (p: Progress) => string): ProgressReporter {
  const bar = new cliProgress.SingleBar({
    stream: process.stderr,
    format: '{head} {bar} {value}/{total} tasks | acc {acc} | {rate} tasks/s | eta {eta}{note}',
    hideCursor: true,
    clearOnComplete: false,
  }, cliProgress.Presets.shades_classic);
  bar.start(total, 0, { head: label, acc: '-', rate: '0', eta: '-', note: '' });
  return {
    update: (p) => {
      const note = p.waiting ? ' | waiting for endpoints' : pace.replaying(p) ? ` | ${p.logged} logged, re-checked` : '';
      bar.update(p.done, { head: head(p), acc: p.accuracy.toFixed(3), rate: pace.rate(p), eta: pace.eta(p), note });
    },
    // Clear the bar's line, print the line, draw the bar again below it.
    log: (line) => { process.stderr.write(`\r\x1b[K${line}\n`); bar.render(); },
    stop: () => bar.stop(),
  };
}

function lineReporter(label: string, clock: Clock, pace: Pace, head: (p: Progress) => string, plain: (line: string) => void): ProgressReporter {
  let nextMark = 0.1;
  let lastLine = -Infinity;
  return {
    update: (p) => {
      if (p.waiting !== undefined) {
        plain(`${label} ${p.done}/${p.total} tasks | ${p.waiting ? 'waiting for endpoints (no endpoint is healthy; probing)' : 'endpoints are back'}`);
        return;
      }
      const now = clock.now();
      if (pace.replaying(p)) {
        if (now - lastLine < REPLAY_LINE_MS) return;
        lastLine = now;
        plain(`${head(p)}: ${p.done}/${p.logged} logged tasks re-checked (of ${p.total}) | ${pace.rate(p)} tasks/s`);
        return;
      }
      const eta = pace.eta(p);
      const atMark = p.done / p.total + 1e-9 >= nextMark || p.done === p.total;
      if (!atMark && now - lastLine < QUIET_LINE_MS) return;
      while (nextMark <= p.done / p.total + 1e-9) nextMark += 0.1;
      lastLine = now;
      plain(`${label} ${p.done}/${p.total} tasks | acc ${p.accuracy.toFixed(3)} | ${pace.rate(p)} tasks/s${eta === '-' ? '' : ` | eta ${eta}`}`);
    },
    log: plain,
    stop: () => {},
  };
}
