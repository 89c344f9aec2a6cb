import { createReadStream, existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { isEventType, type EventType, type LoggedEvent } from './catalogue';

/** The log's file name inside a run directory. */
export const EVENTS_FILE = 'events.jsonl';

/** A line of `events.jsonl` that could not be read as an event. */
export interface SkippedLine {
  /** 1-based line number. */
  readonly line: number;
  readonly reason: string;
  /** True for the file's last line: the mark of a run killed mid-write. */
  readonly last: boolean;
}

/** What reading the log found, besides the events themselves. */
export interface ReadStats {
  /** Non-empty lines seen. */
  lines: number;
  /** Lines delivered as events (of the asked types). */
  events: number;
  /** Events of a type this EvoChamber does not know (a newer writer's), skipped. */
  unknown: number;
  /** Unreadable lines (at most the first 50 are kept; `skippedCount` has them all). */
  skipped: SkippedLine[];
  skippedCount: number;
}

/** Told while a log is read: bytes read so far of the file's size. */
export type ReadProgress = (bytesRead: number, totalBytes: number) => void;

/** What to read. */
export interface ReadEventsOptions<T extends EventType> {
  /** Only these types (default: every type the catalogue knows). */
  readonly types?: readonly T[];
  /** Told the bytes read at each further 1 % of the file and once at the end. */
  readonly onProgress?: ReadProgress;
}

/** One line parsed: an event (`known`: its type is in the catalogue), or why it is not one. */
export type ParsedLine = { readonly event: LoggedEvent; readonly known: boolean } | { readonly bad: string };

/**
 * Parse one line of `events.jsonl`. The fields are not re-validated (the writer's type is the
 * catalogue's, and the schema test holds it to it); a line that is not a JSON object with a string
 * `type` is bad.
 */
export function parseEventLine(line: string): ParsedLine {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (err) {
    return { bad: `not JSON (${(err as Error).message.split('\n')[0]}): ${line.slice(0, 60)}${line.length > 60 ? '…' : ''}` };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { bad: 'not a JSON object' };
  const type = (value as { type?: unknown }).type;
  if (typeof type !== 'string') return { bad: 'no "type" field' };
  return { event: value as LoggedEvent, known: isEventType(type) };
}

const KEEP_SKIPPED = 50;
const PROGRESS_STEP = 0.01;
const BATCH = 256;

/** A run's events being read: iterate it once (or call `forEach` once); `stats` is complete when the reading ends. */
export interface RunEventStream<T extends EventType> extends AsyncIterable<LoggedEvent<T>> {
  readonly stats: ReadStats;
  /** The log's path. */
  readonly file: string;
  /**
   * The same reading with a callback instead of `for await`: no promise per event, so the folds of
   * long logs (report, export, ablation traces) use it. Resolves to `stats`.
   */
  forEach(onEvent: (e: LoggedEvent<T>) => void): Promise<ReadStats>;
}

/** Where a run directory's log is (a path to a `.jsonl` file is taken as the log itself). */
export function eventsFileOf(dir: string): string {
  return dir.endsWith('.jsonl') ? dir : path.join(dir, EVENTS_FILE);
}

/**
 * The one reader of a run's `events.jsonl`: streams it line by line, in file (commit) order, and
 * gives the events of the asked types, typed by the catalogue. Never throws for a bad line: a
 * truncated or garbled line (typically the last one of a run killed mid-write) is skipped and
 * counted; an event of a type the catalogue does not know (a newer writer's) is skipped and counted.
 */
export function readRunEvents<T extends EventType = EventType>(dir: string, opts: ReadEventsOptions<T> = {}): RunEventStream<T> {
  const file = eventsFileOf(dir);
  const stats: ReadStats = { lines: 0, events: 0, unknown: 0, skipped: [], skippedCount: 0 };
  const want = opts.types ? new Set<string>(opts.types) : null;
  /** The file's events in batches (a promise per batch, not per event), telling the bytes read as it goes. */
  async function* batches(): AsyncGenerator<LoggedEvent<T>[]> {
    const onProgress = opts.onProgress;
    const input = createReadStream(file, { encoding: 'utf8' });
    const size = onProgress ? statSync(file).size : 0;
    const rl = createInterface({ input, crlfDelay: Infinity });
    let nextProgress = size * PROGRESS_STEP;
    // A bad line is only known to be the last one when the next line arrives (or none does).
    let pending: Omit<SkippedLine, 'last'> | null = null;
    const settle = (last: boolean) => {
      if (!pending) return;
      stats.skippedCount += 1;
      if (stats.skipped.length < KEEP_SKIPPED) stats.skipped.push({ ...pending, last });
      pending = null;
    };
    let n = 0;
    let batch: LoggedEvent<T>[] = [];
    for await (const raw of rl) {
      n += 1;
      const line = raw.trim();
      if (!line) continue;
      settle(false);
      stats.lines += 1;
      const parsed = parseEventLine(line);
      if ('bad' in parsed) { pending = { line: n, reason: parsed.bad }; continue; }
      if (onProgress && input.bytesRead >= nextProgress) {
        onProgress(Math.min(input.bytesRead, size), size);
        nextProgress = input.bytesRead + size * PROGRESS_STEP;
      }
      if (!parsed.known) { stats.unknown += 1; continue; }
      if (want && !want.has(parsed.event.type)) continue;
      stats.events += 1;
      batch.push(parsed.event as LoggedEvent<T>);
      if (batch.length >= BATCH) { yield batch; batch = []; }
    }
    if (batch.length > 0) yield batch;
    settle(true);
    onProgress?.(size, size);
  }
  return {
    stats,
    file,
    async *[Symbol.asyncIterator]() {
      for await (const batch of batches()) yield* batch;
    },
    async forEach(onEvent) {
      for await (const batch of batches()) for (const e of batch) onEvent(e);
      return stats;
    },
  };
}

/**
 * The same reader for a small log read at once (a pilot run, a calibration run): the events of the
 * asked types, in order; bad lines and unknown types skipped. Empty when the log does not exist.
 */
export function readRunEventsSync<T extends EventType = EventType>(dir: string, opts: Pick<ReadEventsOptions<T>, 'types'> = {}): LoggedEvent<T>[] {
  const file = eventsFileOf(dir);
  if (!existsSync(file)) return [];
  const want = opts.types ? new Set<string>(opts.types) : null;
  const out: LoggedEvent<T>[] = [];
  for (const raw of readFileSync(file, 'utf8').split('\n')) {
    const line = raw.trim();
    if (!line) continue;
    const parsed = parseEventLine(line);
    if ('bad' in parsed || !parsed.known || (want && !want.has(parsed.event.type))) continue;
    out.push(parsed.event as LoggedEvent<T>);
  }
  return out;
}
