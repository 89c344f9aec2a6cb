import { mathGrader } from '../graders/math-grader';
import type { DomainDescriptor } from './domain';

/** Math: a final answer in `\boxed{}`, graded by exact, numeric or symbolic equivalence. */
export const mathDomain: DomainDescriptor = {
  name: 'math',
  createGrader: () => mathGrader.create(),
  replies: {
    write: (answer) => `Working through the steps carefully.\nSo the final answer is \\boxed{${answer}}.`,
    read: (text) => [...text.matchAll(/\\boxed\{([^}]*)\}/g)].at(-1)?.[1] ?? null,
    marker: (answer) => `\\boxed{${answer}}`,
    checkable: (text) => text.includes('Working through the steps'),
    blank: 'unknown',
    numeric: true,
  },
};
