/**
 * QA grader: SQuAD-style normalization and token F1 against the gold span and its aliases.
 * Reward is the best F1; `correct` means a normalized exact match.
 */
import type { Grade, Grader, Task } from '../task';
import { collapseSpaces, stripThinking } from '../../core/text';
import { finishedLines, lastBoxed, lastBoxedAt } from './answer-text';
import type { GraderDescriptor } from './grader-descriptor';

/** SQuAD normalization: lowercase, drop punctuation, drop articles (a/an/the), collapse whitespace. */
export function normalizeQaAnswer(input: string): string {
  // Answer spans are short; a runaway one is compared on its first 64 KiB.
  let text = input.length > 65536 ? input.slice(0, 65536) : input;
  text = text
    .toLowerCase()
    .replace(/[\p{P}\p{S}]/gu, '')
    .replace(/\b(?:a|an|the)\b/g, ' ');
  return collapseSpaces(text).trim();
}

/** SQuAD token F1 between a prediction and one gold answer, in [0, 1]. */
export function tokenF1(prediction: string, gold: string): number {
  const pred = normalizeQaAnswer(prediction).split(' ').filter(Boolean);
  const ref = normalizeQaAnswer(gold).split(' ').filter(Boolean);
  // As in SQuAD v2: when either side has no tokens, F1 is 1 only if both are empty.
  if (pred.length === 0 || ref.length === 0) return pred.length === ref.length ? 1 : 0;
  const counts = new Map<string, number>();
  for (const t of ref) counts.set(t, (counts.get(t) ?? 0) + 1);
  let same = 0;
  for (const t of pred) {
    const c = counts.get(t) ?? 0;
    if (c > 0) { same++; counts.set(t, c - 1); }
  }
  if (same === 0) return 0;
  const precision = same / pred.length;
  const recall = same / ref.length;
  return (2 * precision * recall) / (precision + recall);
}

const QUOTES = /^["'“”‘’`]+|["'“”‘’`]+$/g;

/** Trim markdown emphasis, surrounding quotes and a trailing period from an answer span. */
function cleanSpan(span: string): string {
  let s = span.replace(/\*\*|__/g, '').trim();
  for (let k = 0; k < 2; k++) s = s.replace(QUOTES, '').replace(/\.$/, '').trim();
  return s;
}

/** The answer span: `\boxed{}`, else text after the last "Answer:", else the last non-empty line. */
export function extractQaAnswer(completion: string): string | null {
  const full = stripThinking(completion);
  // Only the last 64 KiB are searched: the answer comes last.
  const text = full.length > 65536 ? full.slice(-65536) : full;
  const boxed = lastBoxed(text);
  if (boxed !== null) {
    const span = cleanSpan(boxed.replace(/\\text\s*\{([^{}]*)\}/g, '$1'));
    if (span !== '') return span;
  }
  const matches = [...text.matchAll(/answer[ \t*]*:/gi)];
  const last = matches.pop();
  if (last) {
    const rest = text.slice((last.index ?? 0) + last[0].length);
    const line = rest.split('\n').map(cleanSpan).find((l) => l !== '');
    if (line !== undefined) return line;
  }
  const lines = text.split('\n').map(cleanSpan).filter((l) => l !== '');
  return lines.pop() ?? null;
}

/** Answers equal under SQuAD normalization (used for voting); empty answers never match. */
export function qaEquivalent(a: string, b: string): boolean {
  const na = normalizeQaAnswer(a);
  return na !== '' && na === normalizeQaAnswer(b);
}

const ANSWER_LINE = /answer[ \t*]*:[^\n]*\S/i;

/** A cut-off reply holds an answer when the extraction finds one in a closed box or on an `Answer:` line that ended. */
export function qaHoldsAnswerWhenCut(completion: string): boolean {
  if (extractQaAnswer(completion) === null) return false;
  const text = stripThinking(completion);
  return lastBoxedAt(text) !== null || ANSWER_LINE.test(finishedLines(text));
}

/** Grader for QA niches: reward = best token F1 over gold + aliases; correct = exact match. */
export function createQaGrader(): Grader {
  return {
    extract: (completion) => {
      try {
        return extractQaAnswer(completion);
      } catch {
        return null;
      }
    },
    equivalent: qaEquivalent,
    holdsAnswerWhenCut: (completion) => {
      try {
        return qaHoldsAnswerWhenCut(completion);
      } catch {
        return false;
      }
    },
    grade: async (completion: string, task: Task): Promise<Grade> => {
      let extracted: string | null = null;
      try {
        extracted = extractQaAnswer(completion);
        if (extracted === null) return { reward: 0, correct: false, extracted, detail: 'no answer found' };
        const golds = [task.hidden.answer, ...(task.hidden.aliases ?? [])];
        const pred = extracted;
        const correct = golds.some((g) => qaEquivalent(pred, g));
        let best = 0;
        let bestGold = task.hidden.answer;
        for (const g of golds) {
          const f = tokenF1(pred, g);
          if (f > best) { best = f; bestGold = g; }
        }
        const reward = correct ? 1 : best;
        const detail = correct ? 'exact match' : `F1 ${best.toFixed(2)} vs "${bestGold}"`;
        return { reward, correct, extracted, detail };
      } catch (err) {
        return { reward: 0, correct: false, extracted, detail: `grader error: ${String(err)}` };
      }
    },
  };
}

/** The `qa` domain's grader. */
export const qaGrader: GraderDescriptor = { domain: 'qa', create: () => createQaGrader() };
