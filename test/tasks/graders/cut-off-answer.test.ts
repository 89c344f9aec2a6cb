import { describe, expect, it } from 'vitest';
import { codeHoldsAnswerWhenCut } from '../../../src/tasks/graders/code-grader';
import { mathHoldsAnswerWhenCut } from '../../../src/tasks/graders/math-grader';
import { qaHoldsAnswerWhenCut } from '../../../src/tasks/graders/qa-grader';

/** Replies cut off by the token limit: an answer counts only where the reply had committed to it. */
describe('whether a cut-off reply holds an answer', () => {
  it('math: a closed box or an answer line the reply went past; never the last number of the working', () => {
    expect(mathHoldsAnswerWhenCut('')).toBe(false);
    expect(mathHoldsAnswerWhenCut('First 3 + 4 = 7, then multiply by 2 to get 1')).toBe(false);
    expect(mathHoldsAnswerWhenCut('<think>3 + 4 = 7 so the answer is 14')).toBe(false);
    expect(mathHoldsAnswerWhenCut('So 7 * 2 = 14.\n\\boxed{14}\nTo double-check, 14 / 2 = ')).toBe(true);
    expect(mathHoldsAnswerWhenCut('The working gives \\boxed{\\frac{1}{')).toBe(false);
    expect(mathHoldsAnswerWhenCut('The answer is 14.\nLet me verify: 7 + 7 = 1')).toBe(true);
    expect(mathHoldsAnswerWhenCut('The answer is 1')).toBe(false); // the line may go on: 14, 140
    expect(mathHoldsAnswerWhenCut('#### 72\nCheck: 48 + 2')).toBe(true);
  });

  it('code: a closed code block; an unclosed one is cut off mid-program', () => {
    expect(codeHoldsAnswerWhenCut('```python\ndef f(x):\n    return x +')).toBe(false);
    expect(codeHoldsAnswerWhenCut('def f(x):\n    return x + 1')).toBe(false);
    expect(codeHoldsAnswerWhenCut('```python\ndef f(x):\n    return x + 1\n```\nThis works because')).toBe(true);
    expect(codeHoldsAnswerWhenCut('<think>```python\ndef f(x):\n    return 0\n```')).toBe(false);
  });

  it('QA: a closed box or an Answer: line that ended; never the last line', () => {
    expect(qaHoldsAnswerWhenCut('The capital of France is Par')).toBe(false);
    expect(qaHoldsAnswerWhenCut('Answer: Par')).toBe(false);
    expect(qaHoldsAnswerWhenCut('Answer: Paris\nBecause the')).toBe(true);
    expect(qaHoldsAnswerWhenCut('It is \\boxed{Paris} since')).toBe(true);
  });
});
