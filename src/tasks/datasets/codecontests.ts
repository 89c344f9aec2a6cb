import { field, loadRows, stringList, type DatasetRows, type RawRecord } from './dataset-rows';

/** CodeContests' `solutions.language` code for Python 3. */
const PYTHON3 = 3;

/** A Python string literal for any text (JSON string syntax is valid Python). */
const py = (s: string) => JSON.stringify(s);

/**
 * One stdin/stdout pair as a Python test: feed `input` to the candidate's `main()` through
 * sys.stdin (text with a `.buffer`), capture sys.stdout, compare with trailing spaces and blank
 * edges stripped. The sandbox blocks subprocesses, so the program runs in-process.
 */
export function stdioAssert(input: string, output: string): string {
  return [
    'import io, sys',
    '_saved = (sys.stdin, sys.stdout)',
    `sys.stdin = io.TextIOWrapper(io.BytesIO(${py(input)}.encode()), encoding="utf-8")`,
    'sys.stdout = io.StringIO()',
    'try:',
    '    try:',
    '        main()',
    '    except SystemExit:',
    '        pass',
    '    _got = sys.stdout.getvalue()',
    'finally:',
    '    sys.stdin, sys.stdout = _saved',
    '_clean = lambda s: "\\n".join(l.rstrip() for l in s.strip().splitlines())',
    `assert _clean(_got) == _clean(${py(output)}), "wrong output for input " + ${py(input.slice(0, 60))}`,
  ].join('\n');
}

function pairs(v: unknown): string[] | null {
  if (v === undefined) return [];
  if (typeof v !== 'object' || v === null) return null;
  const { input, output } = v as { input?: unknown; output?: unknown };
  const ins = stringList(input);
  const outs = stringList(output);
  if (!ins || !outs || ins.length !== outs.length) return null;
  return ins.map((i, k) => stdioAssert(i, outs[k]!));
}

/** The first Python 3 reference solution, wrapped as `main()` running the script as `__main__`. */
function reference(r: RawRecord): string {
  const sols = r.solutions as { language?: unknown; solution?: unknown } | undefined;
  const langs = Array.isArray(sols?.language) ? sols.language : [];
  const code = stringList(sols?.solution)?.[langs.indexOf(PYTHON3)];
  if (code === undefined) return '';
  return `def main():\n    exec(compile(${py(code)}, "<solution>", "exec"), {"__name__": "__main__"})`;
}

/**
 * CodeContests rows: `description`, `public_tests` / `private_tests` as `{input: [...], output: [...]}`
 * stdin/stdout pairs (public ones are shown). Every pair becomes a hidden test of `main()`.
 * Gold: the first Python 3 solution wrapped in `main()` ('' when there is none). Difficulty 3.
 */
export function loadCodeContests(file: string): DatasetRows {
  return loadRows(file, (r) => {
    const description = field(r, 'description');
    const pub = pairs(r.public_tests);
    const priv = pairs(r.private_tests);
    if (description === undefined || pub === null || priv === null || pub.length + priv.length === 0) return null;
    return {
      difficulty: 3,
      question: `${field(r, 'name') ? `${field(r, 'name')}\n\n` : ''}${description.trim()}`,
      entryPoint: 'main',
      publicTests: pub.slice(0, 2),
      hidden: { answer: reference(r), distractors: [], tests: [...pub, ...priv] },
    };
  });
}
