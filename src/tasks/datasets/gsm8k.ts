import { loadRows, type DatasetRows } from './dataset-rows';

export type { DatasetRows } from './dataset-rows';

/**
 * GSM8K JSONL or JSON array (`{"question", "answer"}` with the final answer after `####`).
 * Malformed rows are skipped and counted, never silently dropped.
 */
export function loadGsm8k(file: string): DatasetRows {
  return loadRows(file, (r) => {
    const m = typeof r.answer === 'string' ? /####\s*(.+)\s*$/.exec(r.answer) : null;
    if (typeof r.question !== 'string' || !m) return null;
    return { difficulty: 1, question: r.question, hidden: { answer: m[1]!.replace(/,/g, '').trim(), distractors: [] } };
  });
}
