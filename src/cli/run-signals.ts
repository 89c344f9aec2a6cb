import { EXIT } from './exit-codes';

/** What `withRunSignals` hands the run: the stop signal and where to register the hard exit. */
export interface RunSignals {
  readonly stop: AbortSignal;
  readonly onAbandonable: (abandon: () => void) => void;
  /** Remove the handlers. */
  dispose(): void;
}

/**
 * SIGINT / SIGTERM for a running command. The first asks the run to stop: no new tasks, those in
 * flight finish (or are cut after the grace period), the run is written as `interrupted`. A
 * second exits at once with EXIT.interrupted (4) after marking the run interrupted on disk (still resumable:
 * every committed task is durable).
 */
export function withRunSignals(graceMs: number, say: (line: string) => void): RunSignals {
  const ctl = new AbortController();
  let abandon: (() => void) | undefined;
  let count = 0;
  const handler = (sig: NodeJS.Signals) => {
    count++;
    if (count === 1) {
      say(`\n${sig}: stopping — no new tasks; tasks in flight finish (at most ${Math.round(graceMs / 1000)} s). Press Ctrl-C again to exit at once.`);
      ctl.abort();
      return;
    }
    abandon?.();
    say(`${sig}: exiting now; continue later with "evochamber resume".`);
    process.exit(EXIT.interrupted);
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  return {
    stop: ctl.signal,
    onAbandonable: (fn) => { abandon = fn; },
    dispose: () => {
      process.off('SIGINT', handler);
      process.off('SIGTERM', handler);
    },
  };
}
