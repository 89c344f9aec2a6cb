import { describe, expect, it } from 'vitest';
import { createQaGrader, normalizeQaAnswer, tokenF1 } from '../../../src/tasks/graders';
import { QA_COMPLETIONS, taskOf } from './completions.fixtures';

const grader = createQaGrader();

describe('qa grader: extraction from real completion shapes', () => {
  for (const c of QA_COMPLETIONS) {
    it(`extracts from ${c.name}`, () => {
      expect(grader.extract(c.text)).toBe(c.extracted);
    });
  }
});

describe('qa grader: SQuAD normalization and token F1', () => {
  it('lowercases, drops punctuation and articles, collapses whitespace', () => {
    expect(normalizeQaAnswer('  The   Eiffel-Tower, in Paris! ')).toBe('eiffeltower in paris');
    expect(normalizeQaAnswer('An apple a day')).toBe('apple day');
  });

  it.each([
    ['Paris', 'paris', 1],
    ['the Eiffel Tower', 'Eiffel Tower', 1],
    ['Eiffel Tower in Paris', 'Eiffel Tower', 2 / 3], // p = 2/4, r = 2/2
    ['Paris France', 'Paris', 2 / 3], // p = 1/2, r = 1
    ['Marie', 'Marie Sklodowska Curie', 0.5], // p = 1, r = 1/3
    ['London', 'Paris', 0],
    ['the', 'a', 1], // both normalize to nothing
    ['the', 'Paris', 0],
    ['New York New York', 'New York', 2 / 3], // repeated tokens count once per gold occurrence
  ])('F1(%s, %s) = %s', (pred, gold, want) => {
    expect(tokenF1(pred, gold)).toBeCloseTo(want, 10);
  });
});

describe('qa grader: grading', () => {
  it('counts a normalized exact match as correct with reward 1', async () => {
    const g = await grader.grade('Answer: "the Eiffel Tower."', taskOf('qa', 'Eiffel Tower'));
    expect(g).toMatchObject({ reward: 1, correct: true, extracted: 'the Eiffel Tower' });
  });

  it('accepts an alias as an exact match', async () => {
    const g = await grader.grade('Answer: NYC', taskOf('qa', 'New York City', { aliases: ['NYC'] }));
    expect(g).toMatchObject({ reward: 1, correct: true });
  });

  it('gives partial credit as the best F1 over gold and aliases, but not correct', async () => {
    const g = await grader.grade('Answer: Curie', taskOf('qa', 'Pierre Marie Curie', { aliases: ['Marie Curie'] }));
    expect(g.correct).toBe(false);
    expect(g.reward).toBeCloseTo(2 / 3, 10);
    expect(g.detail).toContain('Marie Curie');
  });

  it('reports "no answer found" for an empty completion', async () => {
    const g = await grader.grade('   \n ', taskOf('qa', 'Paris'));
    expect(g).toMatchObject({ reward: 0, correct: false, extracted: null, detail: 'no answer found' });
  });

  it('equivalence ignores case, punctuation and articles only', () => {
    expect(grader.equivalent('The Beatles!', 'beatles')).toBe(true);
    expect(grader.equivalent('Beatles', 'Rolling Stones')).toBe(false);
    expect(grader.equivalent('the', 'a')).toBe(false);
  });
});
