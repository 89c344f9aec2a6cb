/**
 * Text surgery shared by the graders: finding `\boxed{}` answers in raw model completions
 * (reasoning traces are removed by src/core/text.ts). Pure string functions, linear in
 * the input, never throw.
 */

/**
 * Content of the balanced `{…}` group starting at `open` (which must index a `{`), plus the index
 * just past its closing brace; null when the braces do not balance before `limit`.
 */
export function readBraceGroup(text: string, open: number, limit = text.length): { content: string; end: number } | null {
  if (text[open] !== '{') return null;
  let depth = 0;
  for (let i = open; i < limit; i++) {
    const ch = text[i];
    if (ch === '\\') { i++; continue; } // `\{` and `\}` are literal braces, not grouping.
    if (ch === '{') depth++;
    else if (ch === '}' && --depth === 0) return { content: text.slice(open + 1, i), end: i + 1 };
  }
  return null;
}

/**
 * Content of the LAST `\boxed{…}` or `\fbox{…}` (balanced braces, so `\boxed{\frac{1}{2}}` works),
 * or of `\boxed 5` without braces; null when there is none.
 */
export function lastBoxed(text: string): string | null {
  return lastBoxedAt(text)?.content ?? null;
}

/** As `lastBoxed`, with the index just past the box (what follows it may restate the answer). */
export function lastBoxedAt(text: string): { content: string; end: number } | null {
  // Walk backwards, command by command, with one lastIndexOf cursor per command name (no list of
  // every match; a cursor moves only when its command was consumed). A group that did not close
  // before the next box command never closes (that command's own group stays open to the end), so
  // each scan stops there: linear overall.
  const before = (name: string, end: number) => (end <= 0 ? -1 : text.lastIndexOf(name, end - 1));
  let boxed = before('\\boxed', text.length);
  let fbox = before('\\fbox', text.length);
  let limit = text.length;
  while (boxed >= 0 || fbox >= 0) {
    const isBoxed = boxed > fbox;
    const at = isBoxed ? boxed : fbox;
    if (isBoxed) boxed = before('\\boxed', at);
    else fbox = before('\\fbox', at);
    const name = at + (isBoxed ? 6 : 5);
    let start = name;
    while (start < text.length && /\s/.test(text[start]!)) start++;
    if (text[start] === '{') {
      const group = readBraceGroup(text, start, limit);
      if (group) return { content: group.content.trim(), end: group.end };
      limit = at;
    } else if (isBoxed && start > name) {
      const token = /^[^\s$]+/.exec(text.slice(start, start + 200));
      if (token) return { content: token[0], end: start + token[0].length };
    }
  }
  return null;
}

/**
 * The lines a cut-off reply had finished: its text up to the last line break. A reply the token
 * limit cut off holds an answer only where it had committed to one (a closed box, an answer line
 * it went past, a closed code block), never in a fallback such as the last number, which is
 * wherever the working happened to stop (each grader's `holdsAnswerWhenCut`).
 */
export function finishedLines(text: string): string {
  return text.slice(0, text.lastIndexOf('\n') + 1);
}
