import { lastBoxed } from '../graders/answer-text';
import { field, loadRows, type DatasetFilter, type DatasetRows } from './dataset-rows';

/** MATH difficulty: `level` "Level 4" or 4 → 4; absent or unrated ("Level ?") → 3. */
export function mathLevel(level: unknown): number {
  const m = typeof level === 'number' ? String(level) : typeof level === 'string' ? /([1-5])/.exec(level)?.[1] : undefined;
  return m ? Number(m) : 3;
}

/**
 * MATH (Hendrycks) rows: `problem`, and `answer` or the last `\boxed{}` of `solution`; `level`
 * → difficulty 1–5; `type` (or MATH-500's `subject`) for the `types` filter. Rows with no
 * problem or no answer are skipped and counted.
 */
export function loadMath(file: string, filter: DatasetFilter = {}): DatasetRows {
  return loadRows(file, (r) => {
    const question = field(r, 'problem');
    const solution = field(r, 'solution');
    const answer = field(r, 'answer') ?? (solution !== undefined ? lastBoxed(solution) : null);
    if (question === undefined || !answer) return null;
    const difficulty = mathLevel(r.level);
    const type = field(r, 'type', 'subject');
    if (filter.levels && !filter.levels.includes(difficulty)) return false;
    if (filter.types && (type === undefined || !filter.types.includes(type))) return false;
    return { difficulty, question, hidden: { answer: answer.trim(), distractors: [] } };
  });
}
