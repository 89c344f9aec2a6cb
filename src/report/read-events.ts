import { createReadStream, existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { RunStore, type RunFile } from '../store/run-store';

/** One event as read back from `events.jsonl`: `{id, seq, type, ...}`. */
export type RunEvent = { readonly type: string; readonly seq?: number } & Record<string, unknown>;

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
  /** Lines delivered as events. */
  events: number;
  /** Unreadable lines (at most the first 50 are kept; `skippedCount` has them all). */
  skipped: SkippedLine[];
  skippedCount: number;
}

const KEEP_SKIPPED = 50;

/** Told while a log is read: bytes read so far of the file's size. */
export type ReadProgress = (bytesRead: number, totalBytes: number) => void;

/** Share of the file between two `onProgress` calls. */
const PROGRESS_STEP = 0.01;

/**
 * The one reader of `events.jsonl`: streams it line by line and calls `onEvent` for each event,
 * in file (commit) order. Never throws for a bad line: a truncated or garbled line, typically the
 * last one of a run killed mid-write, is skipped and counted in the returned stats. `onProgress`
 * is told the bytes read at each further 1 % of the file and once at the end.
 */
export async function readEventLog(file: string, onEvent: (e: RunEvent) => void, onProgress?: ReadProgress): Promise<ReadStats> {
  const stats: ReadStats = { lines: 0, events: 0, skipped: [], skippedCount: 0 };
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
  for await (const raw of rl) {
    n += 1;
    const line = raw.trim();
    if (!line) continue;
    settle(false);
    stats.lines += 1;
    const parsed = parseLine(line);
    if (typeof parsed === 'string') { pending = { line: n, reason: parsed }; continue; }
    stats.events += 1;
    onEvent(parsed);
    if (onProgress && input.bytesRead >= nextProgress) {
      onProgress(Math.min(input.bytesRead, size), size);
      nextProgress = input.bytesRead + size * PROGRESS_STEP;
    }
  }
  settle(true);
  onProgress?.(size, size);
  return stats;
}

function parseLine(line: string): RunEvent | string {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (err) {
    return `not JSON (${(err as Error).message.split('\n')[0]}): ${line.slice(0, 60)}${line.length > 60 ? '…' : ''}`;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'not a JSON object';
  if (typeof (value as { type?: unknown }).type !== 'string') return 'no "type" field';
  return value as RunEvent;
}

/** A run directory opened for reporting: its `run.json` and where its log is. */
export interface RunDirectory {
  readonly dir: string;
  readonly run: Readonly<RunFile>;
  readonly eventsFile: string;
}

/** Open a run directory for reporting; fails clearly when it is not one. */
export async function openRunDirectory(dir: string): Promise<RunDirectory> {
  const abs = path.resolve(dir);
  if (!existsSync(abs)) throw new Error(`${dir}: no such directory`);
  const store = await RunStore.open(abs);
  const eventsFile = path.join(abs, 'events.jsonl');
  if (!existsSync(eventsFile)) throw new Error(`${dir}: no events.jsonl (the report is built from the event log)`);
  return { dir: abs, run: store.data, eventsFile };
}
