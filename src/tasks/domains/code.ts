import { codeGrader } from '../graders/code-grader';
import type { DomainDescriptor } from './domain';

/** Code: a Python function in a fenced block, graded pass@1 by running hidden tests in the sandbox. */
export const codeDomain: DomainDescriptor = {
  name: 'code',
  createGrader: (s) => codeGrader.create({ workers: s.codeWorkers, timeoutMs: s.codeTimeoutMs, allowUnsandboxed: s.allowUnsandboxed, verdictDir: s.verdictDir }),
  replies: {
    write: (answer) => `Here is the function.\n\n\`\`\`python\n${answer}\n\`\`\``,
    read: (text) => /```python\n([\s\S]*?)\n```/.exec(text)?.[1] ?? null,
    marker: (answer) => answer,
    // A bug hides from reading: code is checked only by running tests.
    checkable: () => false,
    blank: 'def solution(*args):\n    return None',
    numeric: false,
  },
};
