/**
 * Canonical forms for math answers: LaTeX and prose noise stripped, fractions/roots rewritten
 * into mathjs syntax. Pure string work, linear-ish in the input, never throws.
 */
import { lastBoxed, readBraceGroup } from './answer-text';
import { unifyMinus } from './math-statement';

/** Longer inputs are compared as strings only: canonicalizing essays is pointless and slow. */
const MAX_NORMALIZE = 1000;

/** Marks a space between two digits: kept, so the digits are never read as one number. */
const DIGIT_GAP = '\u2423';

/** Single-letter words that are units, so "5 m" → 5 but "5 x" stays (x is more likely a variable). */
const SINGLE_LETTER_UNITS = new Set(['m', 'g', 's', 'l', 'h', 'K', 'L']);

/** Canonical string for a math answer (e.g. `\$1,234.50` → `1234.50`, `\dfrac12` → `(1)/(2)`). */
export function normalizeMathAnswer(raw: string): string {
  let s = raw.trim();
  if (s.length > MAX_NORMALIZE) return s.slice(0, 4 * MAX_NORMALIZE).replace(/\s+/g, '');
  // U+2212 (the typographic minus), an en or figure dash or a full-width hyphen before a number is a
  // minus sign, also in front of a currency symbol.
  s = unifyMinus(s).replace(/\u2212/g, '-');
  const boxed = lastBoxed(s);
  if (boxed !== null) s = boxed;
  s = s
    .replace(/\\[()[\]]/g, '')
    .replace(/\\\$/g, '')
    .replace(/\$/g, '')
    .replace(/\\(?:left|right|displaystyle|textstyle)(?![a-zA-Z])/g, '')
    .replace(/\\(?:qquad|quad)(?![a-zA-Z])/g, ' ')
    // Thousands groups set with a TeX thin space or `{,}` (`1\,000\,000`, `10{,}000`) are one number.
    .replace(/(?<=(?:^|[^\d.])\d{1,3}(?:(?:\\,|\{,\})\d{3})*)(?:\\,|\{,\})(?=\d{3}(?!\d))/g, '')
    .replace(/\\[!,;: ]/g, ' ')
    .replace(/~/g, ' ')
    .replace(/\\(?:text|textbf|textit|textrm|mathrm|mathbf|mbox|operatorname)\s*\{([^{}]*)\}/g, ' $1 ')
    .replace(/\^\s*\{?\s*\\circ\s*\}?|°|\\circ(?![a-zA-Z])/g, '')
    .replace(/\\?%/g, '')
    .replace(/\\[dt]frac(?![a-zA-Z])/g, '\\frac')
    .replace(/\\(?:cdot|times|ast)(?![a-zA-Z])/g, '*')
    .replace(/\\div(?![a-zA-Z])/g, '/')
    .replace(/\\pi(?![a-zA-Z])/g, 'pi')
    .replace(/\\infty(?![a-zA-Z])/g, 'Infinity')
    .trim();
  s = convertLatex(s).replace(/\{/g, '(').replace(/\}/g, ')');
  s = stripAssignment(s);
  s = stripUnits(s);
  if (/^[-+]?\d{1,3}(?:,\d{3})+(?:\.\d+)?$/.test(s.replace(/\s+/g, ''))) s = s.replace(/,/g, '');
  // Thousands groups set with spaces (`1 000`, thin or no-break spaces too) are one number: every
  // group after the first exactly three digits. `4 2` is not 42.
  if (/^[-+]?\d{1,3}(?:[ \u2009\u202f\u00a0]\d{3})+(?:\.\d+)?$/.test(s)) s = s.replace(/[ \u2009\u202f\u00a0]/g, '');
  s = scientific(s);
  // Any other digits separated by space or TeX spacing are not one number (`4 2`, `4\!2` are not 42).
  s = s.replace(/(\d)\s+(?=\d)/g, `$1${DIGIT_GAP}`);
  s = s.replace(/\s+/g, '').replace(/\.$/, '').replace(/^\+/, '');
  return s;
}

/**
 * A number in scientific notation as its exact decimal (`1.2E3` → `1200`, `5e-3` → `0.005`), also
 * `1.2 * 10^(3)` as LaTeX writes it; exponents up to 400.
 */
function scientific(s: string): string {
  const m = /^([-+]?)(\d+)(?:\.(\d+))?(?:[eE]([-+]?\d{1,3})|\s*\*\s*10\s*\^\s*\(?\s*([-+]?\d{1,3})\s*\)?)$/.exec(s);
  if (!m) return s;
  const exp = Number(m[4] ?? m[5]);
  const digits = `${m[2]}${m[3] ?? ''}`;
  const point = (m[2] ?? '').length + exp;
  const body = point <= 0 ? `0.${'0'.repeat(-point)}${digits}` : point >= digits.length ? digits + '0'.repeat(point - digits.length) : `${digits.slice(0, point)}.${digits.slice(point)}`;
  const trimmed = body.includes('.') ? body.replace(/0+$/, '').replace(/\.$/, '') : body;
  return `${m[1] === '-' ? '-' : ''}${trimmed.replace(/^0+(?=\d)/, '')}`;
}

/** Drop a leading `x =` / `f(x) =` / `\theta =` so only the value is compared. */
function stripAssignment(s: string): string {
  if ((s.match(/=/g) ?? []).length !== 1) return s;
  return s.replace(/^\s*\\?[a-zA-Z][\w\\]*(?:\([^()]*\))?\s*=\s*/, '');
}

/** "12 dollars" → "12", "5 cm^2" → "5"; only when what precedes the words is a plain number. */
function stripUnits(s: string): string {
  const m = /^\s*([-+]?[\d.,]+(?:\/[\d.]+)?)(\s*[a-zA-Z][\s\S]*)$/.exec(s);
  if (!m || !/\d/.test(m[1] ?? '')) return s;
  // Checked word by word rather than with a nested regex quantifier, which could backtrack badly.
  const words = (m[2] ?? '').replace(/\^\(?\d+\)?\s*$/, '').trim().split(/\s+/).map((w) => w.replace(/\.$/, ''));
  const unitLike = words.every((w) => /^[a-zA-Z]+$/.test(w) && (w.length >= 2 || SINGLE_LETTER_UNITS.has(w)));
  return unitLike ? (m[1] ?? s) : s;
}

/** One argument of `\frac`/`\sqrt`: a balanced `{…}` group or a single character / command. */
function readArg(s: string, i: number): { text: string; end: number } | null {
  while (s[i] === ' ') i++;
  if (i >= s.length) return null;
  if (s[i] === '{') {
    const g = readBraceGroup(s, i);
    return g ? { text: convertLatex(g.content), end: g.end } : null;
  }
  const cmd = /^\\[a-zA-Z]+/.exec(s.slice(i));
  if (cmd) return { text: cmd[0], end: i + cmd[0].length };
  return { text: s[i] ?? '', end: i + 1 };
}

/** Rewrite `\frac{a}{b}` → `(a)/(b)` and `\sqrt[n]{x}` → `nthRoot(x,n)`, nested groups included. */
function convertLatex(s: string): string {
  let out = '';
  let i = 0;
  while (i < s.length) {
    if (s.startsWith('\\frac', i) && !/[a-zA-Z]/.test(s[i + 5] ?? '')) {
      const num = readArg(s, i + 5);
      const den = num ? readArg(s, num.end) : null;
      if (num && den) {
        out += `(${num.text})/(${den.text})`;
        i = den.end;
        continue;
      }
    }
    if (s.startsWith('\\sqrt', i) && !/[a-zA-Z]/.test(s[i + 5] ?? '')) {
      let j = i + 5;
      let index: string | null = null;
      const opt = /^\s*\[([^\]]*)\]/.exec(s.slice(j));
      if (opt) {
        index = convertLatex(opt[1] ?? '');
        j += opt[0].length;
      }
      const arg = readArg(s, j);
      if (arg) {
        out += index === null ? `sqrt(${arg.text})` : `nthRoot(${arg.text},${index})`;
        i = arg.end;
        continue;
      }
    }
    out += s[i];
    i++;
  }
  return out;
}
