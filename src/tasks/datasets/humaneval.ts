import { field, loadRows, type DatasetRows } from './dataset-rows';

/** Brackets and quotes balance (quote-aware), so a joined multi-line value is one expression. */
function balanced(text: string): boolean {
  const stack: string[] = [];
  const closers: Record<string, string> = { ')': '(', ']': '[', '}': '{' };
  let quote: string | null = null;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quote) {
      if (ch === '\\') i++;
      else if (ch === quote) quote = null;
    } else if (ch === '"' || ch === "'") quote = ch;
    else if (ch === '(' || ch === '[' || ch === '{') stack.push(ch);
    else if (ch in closers && stack.pop() !== closers[ch]) return false;
  }
  return quote === null && stack.length === 0;
}

/** A printed doctest value that reads back as the same Python literal (not prose, not output). */
const LITERAL_START = /^(-?\d|-?\.\d|['"[({]|True\b|False\b|None\b)/;
/** Doctest sources that are statements, or print output rather than a value's repr. */
const STATEMENT = /^(\w+(\s*,\s*\w+)*\s*=[^=]|import\s|from\s|print\s*\(|for\s|if\s|def\s|class\s|with\s)/;
const DOCSTRING_END = /"""|'''/;

/**
 * Only the first 64 KiB of a prompt are read for examples. A HumanEval prompt is a signature and a
 * docstring (a few KiB at most), and the examples taken are the first `n`, so
 * no real prompt reaches the cut; it keeps a runaway text (a million lines) at a few milliseconds
 * rather than a regex test per line.
 */
export const MAX_DOCTEST_TEXT = 64 * 1024;

/**
 * Up to `n` doctest examples from a HumanEval prompt as asserts, read the way doctest reads them:
 * a `>>> call` line, then the expected value on the following lines up to a blank line, the next
 * `>>>` or the docstring's closing quotes (a value may span several lines). Examples that cannot
 * be read back reliably (multi-line sources, statements, printed output, prose, unbalanced values,
 * tracebacks) are left out: the examples are only public hints, and a wrong one misleads critics.
 */
export function doctestAsserts(prompt: string, n = 2): string[] {
  const lines = (prompt.length > MAX_DOCTEST_TEXT ? prompt.slice(0, MAX_DOCTEST_TEXT) : prompt).split('\n');
  const out: string[] = [];
  for (let i = 0; i < lines.length && out.length < n; i++) {
    const call = /^\s*>>>\s?(.*)$/.exec(lines[i]!)?.[1]?.trim();
    if (call === undefined) continue;
    let j = i + 1;
    let multiLineSource = false;
    while (j < lines.length && /^\s*\.\.\.(\s|$)/.test(lines[j]!)) { multiLineSource = true; j++; }
    const expected: string[] = [];
    for (; j < lines.length; j++) {
      const line = lines[j]!.trim();
      if (line === '' || line.startsWith('>>>')) break;
      const end = line.search(DOCSTRING_END);
      if (end >= 0) {
        if (end > 0) expected.push(line.slice(0, end).trim());
        break;
      }
      expected.push(line);
    }
    i = j - 1;
    const value = expected.join(' ').trim();
    const reliable = !multiLineSource && call !== '' && !STATEMENT.test(call)
      && value !== '' && LITERAL_START.test(value) && balanced(call) && balanced(value);
    // Parenthesized: `f(x) == [2] == True` would otherwise be a chained comparison.
    if (reliable) out.push(`assert (${call}) == (${value})`);
  }
  return out;
}

/**
 * HumanEval rows: `prompt` (signature + docstring, shown to agents), `entry_point`, `test`
 * (defines `check(candidate)`), `canonical_solution`. Hidden test: `test` + `check(entry_point)`;
 * gold: `prompt + canonical_solution`; public tests: the prompt's doctest examples that read back
 * reliably. `hidden.prefix` is the prompt, so a body-only answer is graded as `prompt + answer`,
 * as HumanEval's own harness does. Difficulty 1.
 */
export function loadHumanEval(file: string): DatasetRows {
  return loadRows(file, (r) => {
    const prompt = field(r, 'prompt');
    const entryPoint = field(r, 'entry_point');
    const test = field(r, 'test');
    if (prompt === undefined || entryPoint === undefined || test === undefined || !/\bdef\s+check\s*\(/.test(test)) return null;
    const solution = typeof r.canonical_solution === 'string' ? r.canonical_solution : '';
    return {
      difficulty: 1,
      question: `Complete this Python function \`${entryPoint}\` (give the whole function):\n\n${prompt}`,
      entryPoint,
      publicTests: doctestAsserts(prompt),
      hidden: { answer: `${prompt}${solution}`.trim(), distractors: [], tests: [`${test}\ncheck(${entryPoint})`], prefix: prompt },
    };
  });
}
