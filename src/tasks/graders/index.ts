/**
 * The real graders, one per answer domain: math (exact / numeric / symbolic equivalence),
 * QA (SQuAD token F1) and code (pass@1 in a sandboxed Python worker pool).
 */
import type { Domain, Grader } from '../task';
import { createCodeGrader, type CodeGraderOptions } from './code-grader';
import { createMathGrader } from './math-grader';
import { createQaGrader } from './qa-grader';

export { createMathGrader, extractMathAnswer, mathEquivalent } from './math-grader';
export { normalizeMathAnswer } from './math-normalize';
export { createQaGrader, extractQaAnswer, normalizeQaAnswer, qaEquivalent, tokenF1 } from './qa-grader';
export { createCodeGrader, extractCode, normalizeCode, summarizeRun } from './code-grader';
export type { CodeGrader, CodeGraderOptions, TestRunReport } from './code-grader';
export { createSandboxPool } from './code-sandbox';
export type { SandboxOptions, SandboxPool, SandboxResult, TestOutcome } from './code-sandbox';
export type { IsolationMode, SandboxIsolation } from './sandbox-isolation';
export { lastBoxed } from './answer-text';

/** Options for `createGrader`; only the code grader takes any (pool size, limits). */
export type GraderOptions = CodeGraderOptions;

/** The grader for a domain. Code graders own worker processes: call `close()` when done. */
export function createGrader(domain: Domain, opts?: GraderOptions): Grader {
  switch (domain) {
    case 'math':
      return createMathGrader();
    case 'qa':
      return createQaGrader();
    case 'code':
      return createCodeGrader(opts);
    default: {
      const unknown: never = domain;
      throw new Error(`no grader for domain ${String(unknown)}`);
    }
  }
}
