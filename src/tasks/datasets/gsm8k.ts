import { readFileSync } from 'node:fs';
import type { GeneratedTask } from '../niche';

/** Rows loaded from a dataset file, with the count of malformed rows skipped. */
export interface DatasetRows {
  readonly rows: GeneratedTask[];
  readonly skipped: number;
}

/**
 * GSM8K JSONL (`{"question", "answer"}` with the final answer after `####`).
 * Malformed lines are skipped and counted, never silently dropped.
 */
export function loadGsm8k(file: string): DatasetRows {
  const rows: GeneratedTask[] = [];
  let skipped = 0;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    try {
      const r = JSON.parse(line) as { question?: unknown; answer?: unknown };
      const m = typeof r.answer === 'string' ? /####\s*(.+)\s*$/.exec(r.answer) : null;
      if (typeof r.question !== 'string' || !m) { skipped++; continue; }
      rows.push({ difficulty: 1, question: r.question, hidden: { answer: m[1]!.replace(/,/g, '').trim(), distractors: [] } });
    } catch {
      skipped++;
    }
  }
  return { rows, skipped };
}
