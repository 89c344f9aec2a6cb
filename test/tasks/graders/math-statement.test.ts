/**
 * The final statement read as a person would (math-statement.ts): the new hostile set's replies
 * that were accepted wrongly must fail, the ones rejected wrongly must pass.
 */
import { describe, expect, it } from 'vitest';
import { createMathGrader, extractMathAnswer } from '../../../src/tasks/graders';
import { taskOf } from './completions.fixtures';

const grader = createMathGrader();
const grade = (reply: string, gold: string) => grader.grade(reply, taskOf('math', gold));

describe('math: false accepts of the last wave are rejected', () => {
  it.each([
    ['\\boxed{3} or \\boxed{4}', '4'],
    ['\\boxed{3} or \\boxed{4}', '3'],
    ['Final: 3 or 4', '4'],
    ['Final: 3 or 4', '3'],
    ['\\boxed{\\boxed{3}\\boxed{4}}', '4'],
    ['\\boxed{3} (Answer: 4 is wrong.)', '4'],
    ['\\boxed{12} That\'s actually 4 more than the first box.', '4'],
    ['The temperature is \u20135 degrees.', '5'],
    ['\\boxed{0.1000000001}', '0.1'],
    ['The answer is 3 or 4.', '3'],
  ])('rejects %j for gold %s', async (reply, gold) => {
    expect((await grade(reply, gold)).correct).toBe(false);
  });
});

describe('math: false rejects of the last wave are accepted', () => {
  it.each([
    ['So the answer is 10 - 4 = 6.', '6'],
    ['#### 48 + 24 = 72', '72'],
    ['The answer is 42 (dollars).', '42'],
    ['The answer is 18 (three times 6).', '18'],
    ['\\boxed{18}\nA common wrong answer is 24.', '18'],
    ['The answer is 1.2E3.', '1200'],
    ['\\boxed{1.2 \\times 10^{3}}', '1200'],
    ['\\boxed{\u20135}', '-5'],
    ['The temperature is \u20135 degrees.', '-5'],
    ['The answer is 1 000.', '1000'],
    ['The answer is 1\u2009000.', '1000'],
    ['It costs 1\u202f000 coins in the end', '1000'],
    ['The answer is 25%.', '0.25'],
    ['\\boxed{25\\%}', '25'],
    ['The rate is 25%', '0.25'],
    ['The answer is \\frac13.', '1/3'],
    ['\\boxed{\\frac13}', '\\frac{1}{3}'],
    ['The answer is 4? No, it\'s 3.', '3'],
    ['\\boxed{\\boxed{3}}', '3'],
    ['\\boxed{3}. Check: 3 + 1 = 4, so \\boxed{3}', '3'],
    ['The answer is 5e-3', '0.005'],
  ])('accepts %j for gold %s', async (reply, gold) => {
    expect((await grade(reply, gold)).correct).toBe(true);
  });

  it('keeps the percent rule one way: 25 without the sign is not 0.25, and tolerance is exact for integers', async () => {
    expect((await grade('The answer is 25.', '0.25')).correct).toBe(false);
    expect((await grade('\\boxed{42.0000000001}', '42')).correct).toBe(false);
    expect((await grade('\\boxed{0.1}', '0.1000000000000001')).correct).toBe(true);
  });

  it('extracts no answer from a final statement that names two', () => {
    expect(extractMathAnswer('\\boxed{3} or \\boxed{4}')).toBeNull();
    expect(extractMathAnswer('Final: 3 or 4')).toBeNull();
    expect(extractMathAnswer('\\boxed{\\boxed{3}\\boxed{4}}')).toBeNull();
  });
});
