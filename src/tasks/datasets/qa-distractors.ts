import { normalizeQaAnswer } from '../graders/qa-grader';

/** A capitalized word, or initials such as "T.S." (a sentence-final period is not part of a word). */
const WORD = String.raw`(?:(?:[A-Z]\.)+|[A-Z][\w'’-]*)`;
const CAPITALIZED_RUN = new RegExp(String.raw`\b${WORD}(?:\s+(?:of\s+|de\s+|the\s+)?${WORD})*`, 'g');
const NUMBER = /\b\d+(?:[.,]\d+)*\b/g;

/**
 * Cheap wrong answers for a QA row, taken from its own passage: the opposite of a yes/no answer,
 * other numbers for a numeric answer, else other capitalized spans with as many words as the gold.
 * In order of first appearance, never equal to a gold answer; may be empty.
 */
export function passageDistractors(golds: readonly string[], passage: string, max = 3): string[] {
  const gold = golds[0]!.trim();
  const taken = new Set(golds.map(normalizeQaAnswer));
  const lower = gold.toLowerCase();
  if (lower === 'yes' || lower === 'no') return [lower === 'yes' ? 'no' : 'yes'];
  const numeric = /^\d+(?:[.,]\d+)*$/.test(gold);
  const words = gold.split(/\s+/).length;
  const candidates = numeric
    ? passage.match(NUMBER) ?? []
    : (passage.match(CAPITALIZED_RUN) ?? []).map((s) => s.replace(/^(?:The|A|An)\s+/, '').trim()).filter((s) => s.split(/\s+/).length === words);
  const out: string[] = [];
  for (const c of candidates) {
    const key = normalizeQaAnswer(c);
    if (key === '' || taken.has(key)) continue;
    taken.add(key);
    out.push(c);
    if (out.length === max) break;
  }
  return out;
}
