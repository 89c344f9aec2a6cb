import { createHash } from 'node:crypto';
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { SimulatedTarget } from './evaluate';

/** One paid evaluation: the parameter vector, what each target came to, and the objective. */
export interface JournalEntry {
  readonly type: 'eval';
  readonly key: string;
  readonly values: readonly number[];
  readonly sims: readonly SimulatedTarget[];
  readonly chi2: number;
}

/** A stable hash of a JSON value (the calibration's identity, a parameter vector's key). */
export function hashOf(value: unknown): string {
  return createHash('sha256').update(JSON.stringify(value)).digest('hex').slice(0, 16);
}

/** A journal belongs to another calibration (other targets, parameters, seeds or scenario). */
export class JournalMismatchError extends Error {
  constructor(file: string) {
    super(`${file}: this journal belongs to another calibration (its targets, parameters, seeds, tasks or scenario differ); remove it or choose another --out`);
    this.name = 'JournalMismatchError';
  }
}

/**
 * The journal of a calibration's evaluations (JSONL): a header naming the calibration, then one
 * line per paid evaluation keyed by a hash of its parameter vector. A calibration killed midway
 * reads it back and pays for nothing twice: the optimiser replays the same steps from the journal
 * (it is deterministic) and continues where it stopped, to the same world.
 */
export class EvaluationJournal {
  private readonly entries = new Map<string, JournalEntry>();

  constructor(readonly file: string, readonly calibrationKey: string) {
    if (existsSync(file)) {
      const lines = readFileSync(file, 'utf8').split('\n').filter(Boolean);
      const header = lines.length ? safeParse(lines[0]!) as { type?: string; key?: string } | undefined : undefined;
      if (header?.type !== 'calibration' || header.key !== calibrationKey) throw new JournalMismatchError(file);
      // A line cut by a kill is skipped: that evaluation is paid again.
      for (const line of lines.slice(1)) {
        const e = safeParse(line) as JournalEntry | undefined;
        if (e?.type === 'eval' && typeof e.key === 'string') this.entries.set(e.key, e);
      }
    } else {
      mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
      writeFileSync(file, `${JSON.stringify({ type: 'calibration', key: calibrationKey })}\n`);
    }
  }

  /** Evaluations read back from an earlier session. */
  get size(): number {
    return this.entries.size;
  }

  get(key: string): JournalEntry | undefined {
    return this.entries.get(key);
  }

  /** Record a paid evaluation (appended at once: a kill after it loses nothing). */
  add(entry: JournalEntry): void {
    this.entries.set(entry.key, entry);
    appendFileSync(this.file, `${JSON.stringify(entry)}\n`);
  }
}

function safeParse(line: string): unknown {
  try {
    return JSON.parse(line);
  } catch {
    return undefined;
  }
}
