import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createMathGrader, extractMathAnswer } from '../../../src/tasks/graders';
import { loadGsm8k } from '../../../src/tasks/datasets/gsm8k';
import { asTask, FIXTURES } from '../datasets/fixture-files';

const rows = loadGsm8k(path.join(FIXTURES, 'gsm8k-signs.jsonl')).rows;
const grader = createMathGrader();

describe('math extraction keeps the sign in front of a currency symbol', () => {
  it('reads -$10, −$10 and -\\$10 as -10, and $10 as 10', () => {
    expect(extractMathAnswer('She ends up with -$10.')).toBe('-10');
    expect(extractMathAnswer('She ends up with −$10.')).toBe('-10');
    expect(extractMathAnswer('So the balance is -\\$10 in total')).toBe('-10');
    expect(extractMathAnswer('It costs $10 now')).toBe('10');
    expect(extractMathAnswer('pages 2-5 are missing')).toBe('5');
  });

  it('grades GSM8K rows with negative money and temperatures against their gold (real-format rows)', async () => {
    expect(rows.map((r) => r.hidden.answer)).toEqual(['-10', '-5', '-10', '10']);
    const [debt, cold, before, profit] = rows.map((r) => asTask(r, 'math', 'gsm8k'));
    expect((await grader.grade('25 - 35 means she owes money: she has -$10.', debt!)).reward).toBe(1);
    expect((await grader.grade('25 - 35 means she owes money: she has −$10.', debt!)).reward).toBe(1);
    expect((await grader.grade('It fell to −5 degrees.', cold!)).reward).toBe(1);
    expect((await grader.grade('Before the deposit it held -$10.', before!)).reward).toBe(1);
    // The sign is not dropped, so a negative answer is not accepted against a positive gold.
    expect((await grader.grade('The profit is -$10.', profit!)).reward).toBe(0);
    expect((await grader.grade('The profit is $10.', profit!)).reward).toBe(1);
  });
});
