import { field, loadRows, type DatasetRows } from './dataset-rows';

/**
 * Up to `n` doctest examples from a HumanEval prompt as asserts: a `>>> call` line followed by a
 * one-line expected value. Anything less regular is left out (the examples are only public hints).
 */
export function doctestAsserts(prompt: string, n = 2): string[] {
  const lines = prompt.split('\n').map((l) => l.trim());
  const out: string[] = [];
  for (let i = 0; i + 1 < lines.length && out.length < n; i++) {
    const call = /^>>>\s+(.+)$/.exec(lines[i]!)?.[1];
    const expected = lines[i + 1]!;
    if (call === undefined || expected === '' || expected.startsWith('>>>') || /^\s*\w+\s*=[^=]/.test(call)) continue;
    out.push(`assert ${call} == ${expected}`);
  }
  return out;
}

/**
 * HumanEval rows: `prompt` (signature + docstring, shown to agents), `entry_point`, `test`
 * (defines `check(candidate)`), `canonical_solution`. Hidden test: `test` + `check(entry_point)`;
 * gold: `prompt + canonical_solution`; public tests: the prompt's simple doctest examples. Difficulty 1.
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
      hidden: { answer: `${prompt}${solution}`.trim(), distractors: [], tests: [`${test}\ncheck(${entryPoint})`] },
    };
  });
}
