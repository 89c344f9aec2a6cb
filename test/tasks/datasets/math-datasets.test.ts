import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createMathGrader } from '../../../src/tasks/graders';
import { loadAime } from '../../../src/tasks/datasets/aime';
import { loadGsm8k } from '../../../src/tasks/datasets/gsm8k';
import { loadMath } from '../../../src/tasks/datasets/math';
import { asTask, FIXTURES } from './fixture-files';

const grader = createMathGrader();
const file = (name: string) => path.join(FIXTURES, name);

describe('MATH dataset', () => {
  it('takes the last \\boxed{} of the solution as the answer and the level as difficulty', () => {
    const { rows, skipped } = loadMath(file('math.jsonl'));
    expect(rows.map((r) => [r.hidden.answer, r.difficulty])).toEqual([['\\frac{5}{6}', 2], ['4', 4], ['2', 5]]);
    expect(rows[0]!.question).toContain('\\frac{1}{2}+\\frac{1}{3}');
    expect(skipped).toBe(2); // no \boxed{}, broken JSON
  });

  it('keeps only the filtered levels and types, counting the rest as filtered, not malformed', () => {
    const hard = loadMath(file('math.jsonl'), { levels: [4, 5] });
    expect(hard.rows.map((r) => r.difficulty)).toEqual([4, 5]);
    expect([hard.skipped, hard.filtered]).toEqual([2, 1]);
    expect(loadMath(file('math.jsonl'), { types: ['Number Theory'] }).rows.map((r) => r.hidden.answer)).toEqual(['2']);
  });

  it('gold answers grade correct under the math grader, slips do not', async () => {
    for (const row of loadMath(file('math.jsonl')).rows) {
      expect((await grader.grade(`So the answer is \\boxed{${row.hidden.answer}}.`, asTask(row, 'math'))).correct).toBe(true);
    }
    const [first] = loadMath(file('math.jsonl')).rows;
    expect((await grader.grade('\\boxed{5/6}', asTask(first!, 'math'))).correct).toBe(true);
    expect((await grader.grade('\\boxed{1/6}', asTask(first!, 'math'))).correct).toBe(false);
  });
});

describe('AIME dataset', () => {
  it('reads either capitalisation of the fields from a JSON array, difficulty 3', () => {
    const { rows, skipped } = loadAime(file('aime.json'));
    expect(rows.map((r) => r.hidden.answer)).toEqual(['204', '033', '15']);
    expect(rows.every((r) => r.difficulty === 3)).toBe(true);
    expect(skipped).toBe(2); // no answer, not an object
  });

  it('filters by contest year', () => {
    const recent = loadAime(file('aime.json'), { years: [2022, 2023, 2024, 2025] });
    expect(recent.rows.map((r) => r.hidden.answer)).toEqual(['204', '033']);
    expect(recent.filtered).toBe(1);
  });

  it('an answer with leading zeros still grades as the integer', async () => {
    const row = loadAime(file('aime.json')).rows[1]!;
    expect((await grader.grade('\\boxed{33}', asTask(row, 'math'))).correct).toBe(true);
    expect((await grader.grade('\\boxed{34}', asTask(row, 'math'))).correct).toBe(false);
  });
});

describe('GSM8K fixture', () => {
  it('loads two rows and counts two malformed ones', () => {
    const { rows, skipped } = loadGsm8k(file('gsm8k.jsonl'));
    expect(rows.map((r) => r.hidden.answer)).toEqual(['7', '1000']);
    expect(skipped).toBe(2);
  });
});
