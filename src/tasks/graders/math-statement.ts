/**
 * Reading a reply's final statement as a person would (docs/niches-and-graders.md, "The final answer is the last one stated"):
 * the rules the math grader applies around its extraction. Pure string functions, linear in the
 * input, never throw.
 *
 * - Dashes: an en dash, figure dash, minus sign or full-width hyphen directly before a digit (or a
 *   currency sign) is a minus (`–5` is -5). An em dash is punctuation.
 * - More than one answer in the final statement is no answer: `3 or 4`, `\boxed{3} or \boxed{4}`,
 *   boxes inside a box.
 * - A chain `10 - 4 = 6` (also GSM8K's `#### 48 + 24 = 72`) states its last value.
 * - Remarks are not answers: a parenthetical with words (`42 (dollars)`, `18 (three times 6)`), an
 *   answer line about a wrong answer (`A common wrong answer is 24.`, `(Answer: 4 is wrong.)`), a
 *   comparison (`That's actually 4 more than …`).
 * - A retraction `4? No, it's 3.` states what follows it.
 */

/** Dashes that mean minus in front of a number. */
const MINUS_LIKE = /[\u2012\u2013\u2212\uFE63\uFF0D](?=[ \t]?(?:\d|\\?\$))/g;

/** `text` with minus-like dashes in front of numbers written as `-`. */
export const unifyMinus = (text: string): string => text.replace(MINUS_LIKE, '-');

/** A parenthetical holding a word: a remark, not part of the value. */
const WORDY_PARENS = /[ \t]*\((?=[^()\n]*[a-zA-Z]{2})[^()\n]{0,200}\)/g;

/** `line` without parenthetical remarks (`42 (dollars)` is 42); `(2, 3)` and `\left(` stay. */
export const dropRemarks = (line: string): string => line.replace(WORDY_PARENS, (m) => (/\\(?:frac|sqrt|left|right|text)/.test(m) ? m : ''));

/**
 * The value a computation ends with: `10 - 4 = 6` states 6. An assignment `x = 3` stays as written
 * (the normalizer reads its value); only a chain whose left side computes something is cut.
 */
export function lastOfChain(value: string): string {
  const first = value.indexOf('=');
  if (first < 0 || /[<>]|\\[lg]e/.test(value)) return value;
  if (value.indexOf('=', first + 1) < 0 && !/\d/.test(value.slice(0, first))) return value;
  const last = value.slice(value.lastIndexOf('=') + 1).trim();
  return last === '' ? value : last;
}

/** Two values joined by `or` in one statement (`3 or 4`, `x = 3 or x = 4`): no single answer. */
const SEVERAL = /(?:\d|\})[^\n]{0,40}?\s(?:or|and\/or)\s+(?:[a-z]\s*=\s*)?(?:\\boxed\s*\{\s*)?[-\u2212]?(?:\d|\\frac)/i;
export const statesSeveral = (line: string): boolean => SEVERAL.test(line);

/** `4? No, it's 3` / `4? Wait, actually 3`: the statement after a retracted value. */
const RETRACTED = /\?[ \t]*(?:no|nope|wait|actually|hmm)\b[ \t,.!:;-]*(?:(?:it'?s|it\s+is|the\s+answer\s+is|that'?s|make\s+that|actually)[ \t]+)*([^\n]*)$/i;
export function afterRetraction(line: string): string {
  const m = RETRACTED.exec(line);
  return m && /\d/.test(m[1] ?? '') ? (m[1] ?? '').trim() : line;
}

/** Words that, just before an answer phrase, make it a remark about another answer. */
const DISMISSED_BEFORE = /\b(?:wrong|incorrect|mistaken|common|tempting|naive|naïve|not\s+the|isn'?t\s+the|alternative|other)[ \t]*$/i;
/** Words that, just after a stated value, say it is not the answer. */
const DISMISSED_AFTER = /^[ \t]*(?:is|was|would\s+be)[ \t]+(?:wrong|incorrect|not\b|a\s+(?:common\s+)?mistake)|^[ \t]*(?:more|less|fewer|greater|smaller|times|higher|lower)\b/i;

/**
 * Whether an answer phrase at `at` in `text` (its value starting at `valueEnd`) is a remark rather
 * than a statement of the answer: said of a wrong answer, inside parentheses, or a comparison.
 */
export function isRemark(text: string, at: number, valueEnd: number): boolean {
  const before = text.slice(Math.max(0, at - 40), at);
  if (DISMISSED_BEFORE.test(before)) return true;
  const open = before.lastIndexOf('(');
  if (open >= 0 && !before.slice(open).includes(')')) return true;
  return DISMISSED_AFTER.test(text.slice(valueEnd, valueEnd + 40));
}

/** Where each `\boxed{`/`\fbox{` group in `text` starts and ends (balanced braces), in order. */
function boxes(text: string): { start: number; end: number }[] {
  const out: { start: number; end: number }[] = [];
  for (const m of text.matchAll(/\\(?:boxed|fbox)\s*\{/g)) {
    let depth = 0;
    for (let i = m.index + m[0].length - 1; i < text.length; i++) {
      const ch = text[i];
      if (ch === '\\') { i++; continue; }
      if (ch === '{') depth++;
      else if (ch === '}' && --depth === 0) { out.push({ start: m.index, end: i + 1 }); break; }
    }
    if (out.length > 1000) break;
  }
  return out;
}

/**
 * Whether the last box is not one answer: it holds or sits inside another box, or the box before it
 * belongs to the same statement (`\boxed{3} or \boxed{4}`: nothing but a few words between them).
 */
export function boxIsAmbiguous(text: string): boolean {
  const all = boxes(text);
  const last = all[all.length - 1];
  if (!last) return false;
  const container = all.find((b) => b.start <= last.start && b.end >= last.end);
  if (container && container !== last) return all.filter((b) => b.start > container.start && b.end <= container.end).length > 1;
  const prev = all.filter((b) => b.end <= last.start).pop();
  if (!prev) return false;
  const between = text.slice(prev.end, last.start);
  return between.length <= 40 && !/[.!?\n]/.test(between.replace(/\\[a-zA-Z]+/g, ''));
}
