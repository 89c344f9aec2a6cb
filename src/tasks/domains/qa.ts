import { qaGrader } from '../graders/qa-grader';
import type { DomainDescriptor } from './domain';

/** Reading QA: a short span after `Answer:`, graded by SQuAD token F1. */
export const qaDomain: DomainDescriptor = {
  name: 'qa',
  createGrader: () => qaGrader.create(),
  replies: {
    // A reader that applied a method knows where the passage says it, and quotes that evidence.
    write: (answer, o) => `${o.applied ? 'Evidence: the sentence of the passage that settles it, quoted above my answer.' : 'The passage states it directly.'}\nAnswer: ${answer}`,
    read: (text) => /^Answer:\s*(.+)$/m.exec(text)?.[1]?.trim() ?? null,
    marker: (answer) => `Answer: ${answer}`,
    checkable: (text) => /^Evidence:/m.test(text),
    blank: 'unknown',
    numeric: false,
  },
};
