/** A source of time. Logic takes a Clock; only `systemClock` reads the real one. */
export interface Clock {
  /** Milliseconds since an arbitrary origin; monotonic. */
  now(): number;
  /** Wall-clock ISO timestamp, for run metadata only (never for decisions). */
  isoNow(): string;
}

/** The last wall-clock millisecond formatted, and its text: events come ten to a millisecond, and formatting a Date is most of the stamp. */
let isoMs = Number.NaN;
let isoText = '';

/** The real clock: the one place EvoChamber reads wall time (progress rates and run metadata). */
export const systemClock: Clock = {
  now: () => performance.now(),
  isoNow: () => {
    const ms = Date.now();
    if (ms !== isoMs) {
      isoText = new Date(ms).toISOString();
      isoMs = ms;
    }
    return isoText;
  },
};

/** A clock that only moves when told to; for tests and virtual-time simulation. */
export class ManualClock implements Clock {
  constructor(private t = 0, private readonly iso = '2026-01-01T00:00:00.000Z') {}
  now(): number {
    return this.t;
  }
  isoNow(): string {
    return this.iso;
  }
  /** Move time forward by `ms`. */
  advance(ms: number): void {
    this.t += ms;
  }
}
