import { field, loadRows, type DatasetFilter, type DatasetRows } from './dataset-rows';

/** The contest year of an AIME row: `year`/`Year`, else the leading year of `ID`/`id` ("2024-II-4"). */
function aimeYear(r: Record<string, unknown>): number | undefined {
  const y = field(r, 'year', 'Year') ?? /^(\d{4})\b/.exec(field(r, 'ID', 'id') ?? '')?.[1];
  return y !== undefined && /^\d{4}$/.test(y.trim()) ? Number(y) : undefined;
}

/**
 * AIME rows: `problem`/`Problem`, `answer`/`Answer` (an integer 0–999 as number or string),
 * `year`/`Year` (or an `ID` starting with the year) for the `years` filter. Difficulty 3.
 */
export function loadAime(file: string, filter: DatasetFilter = {}): DatasetRows {
  return loadRows(file, (r) => {
    const question = field(r, 'problem', 'Problem', 'question');
    const answer = field(r, 'answer', 'Answer')?.trim();
    if (question === undefined || answer === undefined) return null;
    if (filter.years) {
      const year = aimeYear(r);
      if (year === undefined || !filter.years.includes(year)) return false;
    }
    return { difficulty: 3, question, hidden: { answer, distractors: [] } };
  });
}
