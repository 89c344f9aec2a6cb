import type { Rng } from '../../engine/rng';
import type { AgentView } from '../../population/roster';
import type { Task } from '../../tasks/task';
import type { Team } from '../team';

/** Inputs of team assembly: the task, the active roster (spawn order) and a seeded rng. */
export interface AssemblyContext {
  readonly task: Task;
  readonly roster: readonly AgentView[];
  readonly rng: Rng;
}

/** Picks the team for one task. Contract: returns ≥1 distinct active agents; never mutates the roster. */
export type Assembler = (ctx: AssemblyContext) => Team;
