import { fileURLToPath } from 'node:url';
import type { GeneratedTask } from '../../../src/tasks/niche';
import type { Domain, Task } from '../../../src/tasks/task';

/** The hand-written dataset fixtures, one file per format. */
export const FIXTURES = fileURLToPath(new URL('../../fixtures/datasets/', import.meta.url));

/** A loaded row as a gradable task. */
export function asTask(row: GeneratedTask, domain: Domain, niche = 'fixture'): Task {
  return { ...row, id: `${niche}-0000`, index: 0, block: 0, niche, domain };
}
