import { closeSync, existsSync, openSync, readSync, statSync, watch, type FSWatcher } from 'node:fs';
import { parseEventLine, type LoggedEvent } from '../../store/events';

/** One committed event as the tail read it: its `seq`, the line exactly as logged, and the parsed event. */
export interface TailedEvent {
  readonly seq: number;
  /** The JSON line without its newline (sent to pages as it is, never re-serialized). */
  readonly line: string;
  readonly event: LoggedEvent;
}

/** What the tail has met besides events. */
export interface TailStats {
  /** Non-empty whole lines read. */
  lines: number;
  /** Lines delivered as events. */
  events: number;
  /** Whole lines that were not an event with a seq (garbled, no type, no seq). */
  skippedCount: number;
  /** Events of a type the catalogue does not know (a newer writer's), skipped. */
  unknown: number;
}

/** Bytes read per step: a large log is read in slices, never into one buffer. */
const CHUNK = 4 << 20;
/** One seq → byte-offset checkpoint every this many events: a reconnect re-reads at most this many lines too many. */
const INDEX_EVERY = 256;

/**
 * Follows a run's `events.jsonl` by byte offset. Only whole lines (ending in a newline) are read:
 * a last line without its newline — a group being written, or one cut by a kill — is waited on and
 * never parsed half (a resumed run truncates it and writes the group again). Growth is seen through
 * `fs.watch`, with a poll of the file's size as the fallback (a watcher can miss a replaced file or
 * a network filesystem's writes). Sparse seq → offset checkpoints let `since(seq)` re-read exactly
 * the events after a page's `Last-Event-ID` from disk, without holding the log in memory.
 */
export class EventTail {
  /** Byte offset just past the last whole line read. */
  private offset = 0;
  private lastSeq = -1;
  private readonly index: { seq: number; offset: number }[] = [];
  private watcher: FSWatcher | null = null;
  private timer: ReturnType<typeof setInterval> | null = null;
  private listener: ((batch: TailedEvent[]) => void) | null = null;
  readonly stats: TailStats = { lines: 0, events: 0, skippedCount: 0, unknown: 0 };

  constructor(readonly file: string, private readonly opts: { readonly pollMs?: number } = {}) {}

  /** The seq of the last whole event read, or -1. */
  get seq(): number {
    return this.lastSeq;
  }

  /**
   * Read what is on disk now (synchronously, in slices), then follow the file: `onBatch` gets each
   * group of new whole events in log order. Call once.
   */
  start(onBatch: (batch: TailedEvent[]) => void): void {
    this.listener = onBatch;
    this.check();
    this.timer = setInterval(() => this.check(), this.opts.pollMs ?? 500);
    this.timer.unref?.();
  }

  /** Stop following; no more batches. */
  stop(): void {
    this.listener = null;
    this.watcher?.close();
    this.watcher = null;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Look for new whole lines now (the watcher and the poll call this; tests and benches may too). */
  check(): void {
    if (!this.listener) return;
    if (!this.watcher && existsSync(this.file)) {
      try {
        this.watcher = watch(this.file, { persistent: false }, () => this.check());
        this.watcher.on('error', () => { this.watcher?.close(); this.watcher = null; });
      } catch { /* the poll goes on */ }
    }
    // Slice by slice until nothing whole is left (a slice of garbled lines only moves the offset on).
    for (let from = -1; from !== this.offset;) {
      from = this.offset;
      const batch = this.readFrom(from);
      if (batch.length > 0) this.listener?.(batch);
    }
  }

  /**
   * The events after `seq` that the tail has already delivered, re-read from disk (a page's
   * reconnect with `Last-Event-ID`); together with the batches that follow, exactly the events
   * with a greater seq, each once.
   */
  since(seq: number): TailedEvent[] {
    let from = 0;
    for (let lo = 0, hi = this.index.length - 1; lo <= hi;) {
      const mid = (lo + hi) >> 1;
      if (this.index[mid]!.seq <= seq + 1) { from = this.index[mid]!.offset; lo = mid + 1; } else hi = mid - 1;
    }
    const out: TailedEvent[] = [];
    let at = from;
    while (at < this.offset) {
      const got = this.readSlice(at, this.offset);
      if (got.next === at) break;
      for (const { event } of got.entries) if (event.seq > seq && event.seq <= this.lastSeq) out.push(event);
      at = got.next;
    }
    return out;
  }

  /** Read the next slice of whole lines and move the tail past it: the new events, in log order. */
  private readFrom(from: number): TailedEvent[] {
    const got = this.readSlice(from, Infinity);
    this.offset = got.next;
    this.stats.lines += got.lines;
    this.stats.skippedCount += got.skipped;
    this.stats.unknown += got.unknown;
    const out: TailedEvent[] = [];
    for (const { event: e, offset } of got.entries) {
      // seq only ever grows in a log; a line that breaks that would break Last-Event-ID: skipped.
      if (e.seq <= this.lastSeq) { this.stats.skippedCount += 1; continue; }
      if (this.stats.events % INDEX_EVERY === 0) this.index.push({ seq: e.seq, offset });
      this.lastSeq = e.seq;
      this.stats.events += 1;
      out.push(e);
    }
    return out;
  }

  /** The whole lines in [from, until) — at most one slice, or one line longer than a slice — and where the next one starts. */
  private readSlice(from: number, until: number): Slice {
    const none: Slice = { entries: [], next: from, lines: 0, skipped: 0, unknown: 0 };
    let size: number;
    try {
      size = statSync(this.file).size;
    } catch {
      return none;
    }
    const stop = Math.min(size, until);
    let buf = readBytes(this.file, from, Math.min(stop, from + CHUNK));
    let last = buf.lastIndexOf(0x0a);
    if (last < 0 && from + buf.length < stop) {
      buf = readBytes(this.file, from, stop);
      last = buf.indexOf(0x0a);
    }
    if (last < 0) return none;
    const slice: Slice = { entries: [], next: from + last + 1, lines: 0, skipped: 0, unknown: 0 };
    for (let start = 0; start <= last;) {
      const nl = buf.indexOf(0x0a, start);
      const line = buf.toString('utf8', start, nl).trim();
      if (line) {
        slice.lines += 1;
        const p = parseEventLine(line);
        // The tail orders by seq (Last-Event-ID): a line without one is not an event it can send.
        if ('bad' in p || typeof p.event.seq !== 'number') slice.skipped += 1;
        else if (!p.known) slice.unknown += 1;
        else slice.entries.push({ event: { seq: p.event.seq, line, event: p.event }, offset: from + start });
      }
      start = nl + 1;
    }
    return slice;
  }
}

interface Slice {
  readonly entries: { event: TailedEvent; offset: number }[];
  readonly next: number;
  lines: number;
  skipped: number;
  unknown: number;
}

function readBytes(file: string, from: number, to: number): Buffer {
  const buf = Buffer.allocUnsafe(Math.max(0, to - from));
  const fd = openSync(file, 'r');
  try {
    const n = readSync(fd, buf, 0, buf.length, from);
    return buf.subarray(0, n);
  } finally {
    closeSync(fd);
  }
}
