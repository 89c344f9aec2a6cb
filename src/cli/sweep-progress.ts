import cliProgress from 'cli-progress';
import type { Progress } from '../engine/loop/engine';
import type { SweepEta } from './sweep-estimate';

/** Progress of the runs of a sweep (ablate, resume of an ablation), each on its own. */
export interface SweepProgress {
  update(variant: string, seed: number, p: Progress): void;
  /** A line that must not tear the bars (a finished run, a note). */
  log(line: string): void;
  stop(): void;
}

/** Each run's line is printed when it passes another quarter of its tasks (off a terminal). */
const LINE_STEP = 0.25;

/**
 * On a terminal: a bar per run under way (cli-progress's MultiBar), each with its tasks, accuracy
 * so far and ETA, and with `eta` a last bar for the whole sweep. Elsewhere: a line per run each time
 * it passes another quarter of its tasks, ending with the sweep's share done and ETA.
 * Writes to stderr; stdout stays the table's.
 */
export function createSweepProgress(enabled: boolean, eta?: SweepEta): SweepProgress {
  if (!enabled) return { update: () => {}, log: () => {}, stop: () => {} };
  if (process.stderr.isTTY) {
    const multi = new cliProgress.MultiBar({
      stream: process.stderr,
      format: '{run} {bar} {value}/{total} tasks | acc {acc} | eta {eta_formatted}',
      hideCursor: true,
      clearOnComplete: false,
    }, cliProgress.Presets.shades_classic);
    const bars = new Map<string, cliProgress.SingleBar>();
    // The sweep's own bar, in per mille of its predicted work, with the ETA from measured rates.
    const sweep = eta ? multi.create(1000, 0, { eta: eta.describe() }, { format: 'sweep {bar} {eta}' }) : null;
    let width = 0;
    return {
      update: (variant, seed, p) => {
        eta?.update(variant, seed, p.done);
        sweep?.update(Math.round(1000 * eta!.fraction()), { eta: eta!.describe() });
        const key = `${variant} seed ${seed}`;
        width = Math.max(width, key.length);
        let bar = bars.get(key);
        if (!bar) bars.set(key, (bar = multi.create(p.total, 0, { run: key.padEnd(width), acc: '-' })));
        bar.update(p.done, { run: key.padEnd(width), acc: p.accuracy.toFixed(3) });
      },
      log: (line) => multi.log(`${line}\n`),
      stop: () => multi.stop(),
    };
  }
  const marks = new Map<string, number>();
  return {
    update: (variant, seed, p) => {
      eta?.update(variant, seed, p.done);
      if (p.waiting !== undefined || p.total <= 0) return;
      const key = `${variant} seed ${seed}`;
      const next = marks.get(key) ?? LINE_STEP;
      if (p.done / p.total + 1e-9 < next) return;
      let m = next;
      while (m <= p.done / p.total + 1e-9) m += LINE_STEP;
      marks.set(key, m);
      if (p.done < p.total) process.stderr.write(`ablate: ${key} ${p.done}/${p.total} tasks | acc ${p.accuracy.toFixed(3)}${eta ? ` | ${eta.describe()}` : ''}\n`);
    },
    log: (line) => process.stderr.write(`${line}\n`),
    stop: () => {},
  };
}
