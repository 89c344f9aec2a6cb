import { readFileSync } from 'node:fs';
import type { GeneratedTask } from '../niche';

/** The dataset formats EvoChamber loads (one loader file each in `src/tasks/datasets/`). */
export const DATASET_FORMATS = ['gsm8k', 'math', 'aime', 'mbpp', 'mbpp-plus', 'humaneval', 'codecontests', 'hotpotqa', 'drop'] as const;

/** One of `DATASET_FORMATS`. */
export type DatasetFormat = (typeof DATASET_FORMATS)[number];

/** Optional row selection by metadata: MATH `levels` / `types`, AIME `years`. */
export interface DatasetFilter {
  readonly levels?: readonly number[];
  readonly years?: readonly number[];
  readonly types?: readonly string[];
}

/** Rows loaded from a dataset file, with the count of malformed rows skipped (and of rows filtered out). */
export interface DatasetRows {
  readonly rows: GeneratedTask[];
  readonly skipped: number;
  /** Well-formed rows left out by the entry's `filter`. */
  readonly filtered?: number;
}

/** A loader for one format. Contract: never throws for a bad row (it is counted in `skipped`). */
export type DatasetLoader = (file: string, filter?: DatasetFilter) => DatasetRows;

/** A raw record: one JSON object from the file. */
export type RawRecord = Record<string, unknown>;

const isRecord = (v: unknown): v is RawRecord => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The JSON objects in a file: JSON Lines, one JSON array or one JSON object (detected from the
 * content, not the extension). Lines that do not parse and non-object items count as skipped.
 */
export function readRecords(file: string): { records: RawRecord[]; skipped: number } {
  const text = readFileSync(file, 'utf8');
  const first = text.trimStart()[0];
  if (first === '[') {
    let whole: unknown;
    try {
      whole = JSON.parse(text);
    } catch (err) {
      throw new Error(`${file}: not a valid JSON array: ${(err as Error).message}`);
    }
    const items = whole as unknown[];
    const records = items.filter(isRecord);
    return { records, skipped: items.length - records.length };
  }
  if (first === '{') {
    // One (possibly pretty-printed) JSON object, e.g. DROP's passage-keyed file; else JSON Lines.
    try {
      const whole: unknown = JSON.parse(text);
      if (isRecord(whole)) return { records: [whole], skipped: 0 };
    } catch {
      // not one object: read it line by line below
    }
  }
  const records: RawRecord[] = [];
  let skipped = 0;
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    try {
      const v: unknown = JSON.parse(line);
      if (isRecord(v)) records.push(v);
      else skipped++;
    } catch {
      skipped++;
    }
  }
  return { records, skipped };
}

/** What a format's row parser returns: a task, `null` when malformed, `false` when filtered out. */
export type RowResult = GeneratedTask | null | false;

/** Read a file and turn each record into a task; a parser that throws marks the row malformed. */
export function loadRows(file: string, parse: (r: RawRecord) => RowResult, expand?: (r: RawRecord) => RawRecord[]): DatasetRows {
  const read = readRecords(file);
  const rows: GeneratedTask[] = [];
  let skipped = read.skipped;
  let filtered = 0;
  for (const rec of read.records.flatMap((r) => expand?.(r) ?? [r])) {
    let out: RowResult;
    try {
      out = parse(rec);
    } catch {
      out = null;
    }
    if (out === null) skipped++;
    else if (out === false) filtered++;
    else rows.push(out);
  }
  return { rows, skipped, filtered };
}

/** The first field among `keys` holding a non-empty string (numbers are rendered), else undefined. */
export function field(r: RawRecord, ...keys: string[]): string | undefined {
  for (const k of keys) {
    const v = r[k];
    if (typeof v === 'string' && v.trim() !== '') return v;
    if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  }
  return undefined;
}

/** A field holding an array of strings, else undefined. */
export function stringList(v: unknown): string[] | undefined {
  return Array.isArray(v) && v.every((x) => typeof x === 'string') ? (v as string[]) : undefined;
}
