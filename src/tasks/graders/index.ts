/**
 * The real graders, one per answer domain: math (exact / numeric / symbolic equivalence),
 * QA (SQuAD token F1) and code (pass@1 in a sandboxed Python worker pool).
 */
import type { Domain, Grader } from '../task';
import { codeGrader } from './code-grader';
import type { GraderDescriptor, GraderOptions } from './grader-descriptor';
import { mathGrader } from './math-grader';
import { qaGrader } from './qa-grader';

export { createMathGrader, extractMathAnswer, mathEquivalent } from './math-grader';
export { normalizeMathAnswer } from './math-normalize';
export { createQaGrader, extractQaAnswer, normalizeQaAnswer, qaEquivalent, tokenF1 } from './qa-grader';
export { createCodeGrader, extractCode, normalizeCode, summarizeRun } from './code-grader';
export type { CodeGrader, CodeGraderOptions, TestRunReport } from './code-grader';
export { createSandboxPool } from './code-sandbox';
export type { SandboxOptions, SandboxPool, SandboxResult, TestOutcome } from './code-sandbox';
export type { IsolationMode, SandboxIsolation } from './sandbox-isolation';
export { lastBoxed } from './answer-text';

export type { GraderDescriptor, GraderOptions } from './grader-descriptor';

/** The built-in graders, one descriptor per domain (each in its grader's file). */
export const BUILTIN_GRADERS: readonly GraderDescriptor[] = [mathGrader, qaGrader, codeGrader];

/** Built-in graders by domain (derived from the descriptors). */
export const GRADERS: ReadonlyMap<Domain, GraderDescriptor> = new Map(BUILTIN_GRADERS.map((d) => [d.domain, d]));

/** The grader for a built-in domain. Code graders own worker processes: call `close()` when done. (A run creates its graders through the domain registry, src/tasks/domains/.) */
export function createGrader(domain: Domain, opts?: GraderOptions): Grader {
  const d = GRADERS.get(domain);
  if (!d) throw new Error(`no grader for domain ${String(domain)} (known: ${[...GRADERS.keys()].join(', ')})`);
  return d.create(opts);
}
