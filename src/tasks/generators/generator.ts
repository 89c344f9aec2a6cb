import type { TaskGenerator } from '../niche';

/**
 * A task generator, described in one file; the registry is `src/tasks/generators/index.ts`. A
 * niche uses it by naming it in its spec's `generator` field (`niches/*.json`).
 */
export interface GeneratorDescriptor {
  /** The name a niche spec's `generator` field uses. */
  readonly name: string;
  readonly generate: TaskGenerator;
}
