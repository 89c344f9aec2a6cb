import { field, loadRows, stringList, type DatasetRows, type RawRecord, type RowResult } from './dataset-rows';

/** The name of the first top-level `def` in Python source, or undefined. */
export function firstDef(code: string): string | undefined {
  return /^def\s+([A-Za-z_]\w*)\s*\(/m.exec(code)?.[1];
}

function mbppRow(r: RawRecord, difficulty: number): RowResult {
  const text = field(r, 'text', 'prompt');
  const code = field(r, 'code');
  const list = stringList(r.test_list) ?? [];
  const script = field(r, 'test');
  const entryPoint = field(r, 'entry_point') ?? (code !== undefined ? firstDef(code) : undefined);
  if (text === undefined || code === undefined || entryPoint === undefined || (list.length === 0 && script === undefined)) return null;
  const imports = (stringList(r.test_imports) ?? []).join('\n');
  const withImports = (t: string) => (imports ? `${imports}\n${t}` : t);
  const tests = script === undefined ? list.map(withImports) : [...list.map(withImports), script];
  const publicTests = list.slice(0, 1).map(withImports);
  const setup = field(r, 'test_setup_code')?.trim();
  const example = publicTests.length ? `\nYour code should pass this test:\n${publicTests[0]}` : '';
  return {
    difficulty,
    question: `${text.trim()}\nWrite a Python function named \`${entryPoint}\`.${example}`,
    entryPoint,
    publicTests,
    hidden: { answer: code.replace(/\r\n/g, '\n').trim(), distractors: [], tests, ...(setup ? { setup } : {}) },
  };
}

/**
 * MBPP rows: `text` (or `prompt`), reference `code`, `test_list` of asserts (+ `test_imports`).
 * The entry point is the reference's first `def`; the first test is public. Difficulty 1.
 */
export function loadMbpp(file: string): DatasetRows {
  return loadRows(file, (r) => mbppRow(r, 1));
}

/**
 * MBPP+ (EvalPlus) rows: as MBPP, plus the EvalPlus `test` script (inputs/results loop calling
 * the entry point) run as one more hidden test; `entry_point` used when present. Difficulty 2.
 */
export function loadMbppPlus(file: string): DatasetRows {
  return loadRows(file, (r) => mbppRow(r, 2));
}
