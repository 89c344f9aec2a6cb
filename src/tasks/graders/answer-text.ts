/**
 * Text surgery shared by the graders: removing reasoning traces and finding `\boxed{}` answers
 * in raw model completions. Pure string functions, linear in the input, never throw.
 */

const THINK_TAG = /<(\/?)think(?:ing)?>/gi;

/**
 * Remove reasoning traces: everything up to the last `</think>` (closed blocks, and the stray close
 * tag of chat templates that put the opener in the prompt), then an unclosed `<think>` to the end
 * (a truncated trace holds no final answer). One linear pass: completions can be huge.
 */
export function stripThinking(text: string): string {
  let lastClose = -1;
  let firstOpenAfter = -1;
  for (const m of text.matchAll(THINK_TAG)) {
    const at = m.index ?? 0;
    if (m[1] === '/') {
      lastClose = at + m[0].length;
      firstOpenAfter = -1;
    } else if (firstOpenAfter < 0) {
      firstOpenAfter = at;
    }
  }
  const start = Math.max(lastClose, 0);
  return text.slice(start, firstOpenAfter >= 0 ? firstOpenAfter : text.length).trim();
}

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

const BOX_COMMAND = /\\(?:boxed|fbox)\s*/g;

/**
 * Content of the LAST `\boxed{…}` or `\fbox{…}` (balanced braces, so `\boxed{\frac{1}{2}}` works),
 * or of `\boxed 5` without braces; null when there is none.
 */
export function lastBoxed(text: string): string | null {
  const matches = [...text.matchAll(BOX_COMMAND)];
  // Walk backwards. A group that did not close before the next box command never closes (that
  // command's own group stays open to the end), so each scan stops there: linear overall.
  let limit = text.length;
  for (let k = matches.length - 1; k >= 0; k--) {
    const m = matches[k]!;
    const start = (m.index ?? 0) + m[0].length;
    if (text[start] === '{') {
      const group = readBraceGroup(text, start, limit);
      if (group) return group.content.trim();
      limit = m.index ?? 0;
    } else if (m[0].startsWith('\\boxed') && /\s$/.test(m[0])) {
      const token = /^[^\s$]+/.exec(text.slice(start, start + 200));
      if (token) return token[0];
    }
  }
  return null;
}
