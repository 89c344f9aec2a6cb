import { field, loadRows, stringList, type DatasetRows, type RawRecord } from './dataset-rows';
import { passageDistractors } from './qa-distractors';

/** Gold strings of one DROP answer object `{number, spans, date: {day, month, year}}`. */
function answerStrings(a: unknown): string[] {
  if (typeof a !== 'object' || a === null) return [];
  const { number, spans, date } = a as { number?: unknown; spans?: unknown; date?: unknown };
  if ((typeof number === 'string' && number.trim()) || typeof number === 'number') return [String(number).trim()];
  const s = (stringList(spans) ?? []).filter((x) => x.trim());
  if (s.length) return s.length === 1 ? s : [s.join(', '), ...s];
  if (typeof date === 'object' && date !== null) {
    const d = date as Record<string, unknown>;
    const text = [d.month, d.day, d.year].filter((x) => (typeof x === 'string' && x.trim()) || typeof x === 'number').join(' ');
    return text ? [text] : [];
  }
  return [];
}

/** All gold strings of a row: `answers_spans.spans` (Hugging Face) or `answer` + `validated_answers`. */
function golds(r: RawRecord): string[] {
  const hf = stringList((r.answers_spans as { spans?: unknown } | undefined)?.spans)?.filter((x) => x.trim());
  const all = hf?.length
    ? hf
    : [...answerStrings(r.answer), ...(Array.isArray(r.validated_answers) ? r.validated_answers.flatMap(answerStrings) : [])];
  return [...new Set(all.map((g) => g.trim()))];
}

/** The original release keys passages by id, each with `qa_pairs`: one row per question. */
function expand(r: RawRecord): RawRecord[] {
  const asPassage = (p: RawRecord): RawRecord[] =>
    Array.isArray(p.qa_pairs) ? p.qa_pairs.map((q) => ({ ...(q as RawRecord), passage: p.passage })) : [p];
  if ('passage' in r || 'question' in r) return asPassage(r);
  const values = Object.values(r);
  return values.length > 0 && values.every((v) => typeof v === 'object' && v !== null && 'qa_pairs' in v) ? values.flatMap((v) => asPassage(v as RawRecord)) : [r];
}

/**
 * DROP rows, Hugging Face (`passage`, `question`, `answers_spans.spans`) or original (`passage`,
 * `qa_pairs[].answer.{number, spans, date}` + `validated_answers`). The first gold is the answer,
 * the others aliases (a multi-span answer is joined with ", " and each span is an alias).
 * Difficulty 2; distractors: other numbers / spans of the passage.
 */
export function loadDrop(file: string): DatasetRows {
  return loadRows(file, (r) => {
    const passage = field(r, 'passage');
    const question = field(r, 'question');
    const g = golds(r);
    if (passage === undefined || question === undefined || g.length === 0) return null;
    return {
      difficulty: 2,
      question: `Passage:\n${passage.trim()}\n\nQuestion: ${question}`,
      hidden: { answer: g[0]!, aliases: g.slice(1), distractors: passageDistractors(g, passage) },
    };
  }, expand);
}
