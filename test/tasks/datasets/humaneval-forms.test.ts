import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createCodeGrader } from '../../../src/tasks/graders';
import { loadHumanEval } from '../../../src/tasks/datasets/humaneval';
import { asTask, FIXTURES } from './fixture-files';

const grader = createCodeGrader({ workers: 2 });
afterAll(() => grader.close());
const rows = loadHumanEval(path.join(FIXTURES, 'humaneval-forms.jsonl')).rows;
const row = (entry: string) => rows.find((r) => r.entryPoint === entry)!;
const canonical = (entry: string): string => {
  const r = row(entry);
  return r.hidden.answer.slice(r.hidden.prefix!.trim().length);
};

describe('HumanEval docstring examples', () => {
  it('reads a value spread over several lines as one value', () => {
    expect(row('parse_nested_parens').publicTests).toEqual(["assert (parse_nested_parens('(()()) ((())) () ((())()())')) == ([2, 3, 1, 3])"]);
  });

  it('keeps `f(x) == y` examples unchained, stops at closing quotes, skips printed output', () => {
    expect(row('sort_third').publicTests).toEqual([
      'assert (sort_third([1, 2, 3]) == [1, 2, 3]) == (True)',
      'assert (sort_third([5, 6, 3, 4, 8, 9, 2])) == ([2, 6, 3, 4, 8, 9, 5])',
    ]);
  });

  it('shows no example that cannot be read back (prose output, an example without output)', () => {
    expect(row('solve').publicTests).toEqual(['assert (solve("#a@C")) == ("#A@c")']);
  });

  it('the canonical solution passes every public example and the hidden check()', async () => {
    for (const r of rows) {
      const pub = await grader.runTests(r.hidden.answer, r.publicTests ?? []);
      expect(pub.passed).toBe(pub.total);
      const hidden = await grader.runTests(r.hidden.answer, r.hidden.tests!);
      expect(hidden.detail).toBe('1/1 tests passed');
    }
  });
});

describe('HumanEval completion form', () => {
  it('grades a body-only answer as prompt + body, as HumanEval does (fenced or bare)', async () => {
    for (const r of rows) {
      const body = canonical(r.entryPoint!);
      const task = asTask(r, 'code');
      expect((await grader.grade(`\`\`\`python\n${body}\n\`\`\``, task)).reward).toBe(1);
      expect((await grader.grade(body, task)).reward).toBe(1);
    }
  });

  it('still grades a whole-function answer as written, and a wrong body scores 0', async () => {
    const task = asTask(row('sort_third'), 'code');
    expect((await grader.grade(`\`\`\`python\n${row('sort_third').hidden.answer}\n\`\`\``, task)).reward).toBe(1);
    expect((await grader.grade('```python\n    return sorted(l)\n```', task)).reward).toBe(0);
  });
});
