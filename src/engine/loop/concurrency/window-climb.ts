import type { AutoConfig } from '../../scenario/auto-config';

/** A move of the solve window the climb asks for. */
export interface ClimbStep {
  readonly to: number;
  /** `probe`: a grow; `probe-down`: a shrink; `probe-undone`: back to where the last probe started. */
  readonly reason: 'probe' | 'probe-down' | 'probe-undone';
  readonly detail: string;
}

type Direction = 'up' | 'down';

type State =
  | { readonly kind: 'hold'; readonly left: number; readonly next: Direction; readonly sum: number; readonly n: number }
  | { readonly kind: 'probe'; readonly dir: Direction; readonly from: number; readonly to: number; readonly baseline: number };

const fmt = (x: number) => (Number.isInteger(x) ? String(x) : x.toPrecision(3));

/**
 * A two-sided hill climb of the solve window on measured throughput, one step per period.
 *
 * A probe moves the window from w to w′ (up: + max(1, ceil(w × growStep)); down: − max(1,
 * floor(w × growStep))) and is judged on the next period's throughput against the baseline at w:
 * - up is kept when throughput rose by at least minEfficiency × (w′/w − 1) (the server had
 *   headroom), and the climb goes on up; otherwise it is undone and the climb holds, then tries down;
 * - down is kept when throughput fell by at most minEfficiency × (1 − w′/w) (the window was past
 *   the server's knee: the same work with less staleness), and the climb goes on down; otherwise it
 *   is undone and the climb holds, then tries up.
 * A hold lasts `holdPeriods` periods (doubled for each failed probe in a row in the same direction,
 * up to 8×) and averages their throughput into the next probe's baseline, so one noisy period does
 * not decide. Searching both ways keeps a lucky probe on a plateau from ratcheting the window up
 * for good. Slow start: until a probe first fails, a grow doubles the window.
 */
export class WindowClimb {
  private state: State = { kind: 'hold', left: 0, next: 'up', sum: 0, n: 0 };
  /** Slow start: until a probe first fails, a grow doubles the window (the knee is found in log₂ steps). */
  private doubling = true;
  /** Probes in a row that failed, per direction: each doubles the hold before the next try (up to 8×). */
  private readonly failed: Record<Direction, number> = { up: 0, down: 0 };
  private unit = 'tasks/s';

  constructor(private readonly c: Pick<AutoConfig, 'min' | 'max' | 'growStep' | 'minEfficiency' | 'holdPeriods'>) {}

  /**
   * Forget the current probe (a probe failed, or another rule moved the window): hold `periods`
   * periods, then probe `next`. Ends slow start unless `slowStart` says to keep it.
   */
  restart(periods: number, next: Direction = 'up', slowStart = false): void {
    this.doubling &&= slowStart;
    this.state = { kind: 'hold', left: periods, next, sum: 0, n: 0 };
  }

  /**
   * One period's throughput at window `w` (tokens/s or tasks/s, `unit`, the same every period):
   * where to move the window, or null to stay.
   */
  step(w: number, throughput: number, unit: string, canGrow: boolean): ClimbStep | null {
    this.unit = unit;
    const s = this.state;
    if (s.kind === 'probe') return this.judge(s, w, throughput, canGrow);
    const sum = s.sum + throughput;
    const n = s.n + 1;
    if (s.left > 0) {
      this.state = { ...s, left: s.left - 1, sum, n };
      return null;
    }
    const baseline = sum / n;
    const at = `window ${w} at ${fmt(baseline)} ${this.unit} (mean of ${n} period${n === 1 ? '' : 's'})`;
    const first: Direction = s.next === 'up' ? (canGrow ? 'up' : 'down') : w > this.c.min ? 'down' : 'up';
    if (first === 'up' && canGrow) return this.probe('up', w, baseline, `probing up from ${at}`);
    if (first === 'down' && w > this.c.min) return this.probe('down', w, baseline, `probing down from ${at}`);
    // No probe possible (bounds, staleness): keep a running mean of about the last hold's length.
    const cap = this.c.holdPeriods + 1;
    this.state = n > cap ? { ...s, sum: (sum * cap) / n, n: cap } : { ...s, sum, n };
    return null;
  }

  private judge(p: Extract<State, { kind: 'probe' }>, w: number, thr: number, canGrow: boolean): ClimbStep | null {
    const ratio = p.baseline > 0 ? thr / p.baseline : thr > 0 ? Infinity : 1;
    const said = `throughput ${fmt(p.baseline)} → ${fmt(thr)} ${this.unit} (${fmt(100 * (ratio - 1))} %) at window ${p.from} → ${p.to}`;
    if (p.dir === 'up') {
      const need = this.c.minEfficiency * (p.to / p.from - 1);
      if (ratio - 1 < need) {
        this.restart(this.backoff('up'), 'down');
        return { to: p.from, reason: 'probe-undone', detail: `${said}, needed +${fmt(100 * need)} %` };
      }
      this.failed.up = 0;
      if (canGrow) return this.probe('up', w, thr, `${said}: kept (needed +${fmt(100 * need)} %)`);
      this.restart(this.c.holdPeriods, 'down', this.doubling);
      return null;
    }
    const allowed = this.c.minEfficiency * (1 - p.to / p.from);
    if (1 - ratio > allowed) {
      this.restart(this.backoff('down'), 'up');
      // Back up only when growth is allowed; otherwise the smaller window stays.
      return canGrow ? { to: p.from, reason: 'probe-undone', detail: `${said}, allowed −${fmt(100 * allowed)} %` } : null;
    }
    this.failed.down = 0;
    if (w > this.c.min) return this.probe('down', w, thr, `${said}: kept (allowed −${fmt(100 * allowed)} %)`);
    this.restart(this.c.holdPeriods, 'up');
    return null;
  }

  /** Count a failed probe in `dir`; the hold before the next try: holdPeriods × 2^(failures in a row − 1), at most 8×. */
  private backoff(dir: Direction): number {
    this.failed[dir]++;
    return this.c.holdPeriods * 2 ** Math.min(3, this.failed[dir] - 1);
  }

  private probe(dir: Direction, w: number, baseline: number, detail: string): ClimbStep {
    const by = dir === 'up' ? Math.max(1, Math.ceil(w * (this.doubling ? Math.max(1, this.c.growStep) : this.c.growStep))) : -Math.max(1, Math.floor(w * this.c.growStep));
    const to = Math.min(this.c.max, Math.max(this.c.min, w + by));
    this.state = { kind: 'probe', dir, from: w, to, baseline };
    return { to, reason: dir === 'up' ? 'probe' : 'probe-down', detail };
  }
}
