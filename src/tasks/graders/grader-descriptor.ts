import type { Domain, Grader } from '../task';
import type { SandboxOptions } from './code-sandbox';

/** Options a grader may take when created (only the code grader uses any: its sandbox's pool size and limits, where verdicts persist). */
export type GraderOptions = SandboxOptions & { readonly verdictDir?: string };

/**
 * The grader of one answer domain, described in one file; the registry is
 * `src/tasks/graders/index.ts`. Niches of the domain are graded by it.
 */
export interface GraderDescriptor {
  readonly domain: Domain;
  /** A new grader; one that owns worker processes is stopped with its `close()`. */
  create(opts?: GraderOptions): Grader;
}
