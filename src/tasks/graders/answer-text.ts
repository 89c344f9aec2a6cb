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
