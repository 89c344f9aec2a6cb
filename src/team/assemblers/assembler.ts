import type { Knob } from '../../core/knob';
import type { Rng } from '../../core/rng';
import type { AgentView } from '../../individual/agent-view';
import type { Task } from '../../tasks/task';
import type { Team } from '../team';

/** The assembler weights of docs/how-it-works.md. */
export interface AssemblyWeights {
  /** Complement: weight of competence. */
  readonly wc: number;
  /** Complement: weight of pair synergy with the anchor. */
  readonly ws: number;
  /** Complement and scout: weight of style overlap (a penalty). */
  readonly wo: number;
  /** Scout: weight of novelty. */
  readonly wx: number;
}

/** Inputs of team assembly: the task, the active roster (spawn order), pool state and a seeded rng. */
export interface AssemblyContext {
  readonly task: Task;
  readonly roster: readonly AgentView[];
  readonly rng: Rng;
  /** S[i][j][n] for the task's niche. */
  readonly synergy: (i: string, j: string) => number;
  readonly weights: AssemblyWeights;
  /** Competence of an unseen niche. */
  readonly c0: number;
}

/** Picks the team for one task. Contract: returns ≥1 distinct active agents; never mutates the roster. */
export type Assembler = (ctx: AssemblyContext) => Team;

/** A team assembler, described in one file; the registry is `src/team/assemblers/index.ts`. */
export interface AssemblerDescriptor {
  /** The name a preset's `assembler` field uses. */
  readonly name: string;
  readonly assemble: Assembler;
  /** Members of every team it assembles (the roster must stay larger; lifecycle bounds use it). */
  readonly teamSize: number;
  /** Its settings a meta-editor may change between segments, with their bounds (scenario paths). */
  readonly knobs?: readonly Knob[];
}

/** Index of the maximum score; exact ties broken uniformly at random by `rng`. Throws on an empty list. */
export function argmaxRandomTie(scores: readonly number[], rng: Rng): number {
  if (scores.length === 0) throw new Error('argmax of an empty list');
  // Loops, not a spread and two arrays: a 256-agent roster scores every agent two or three times a task.
  let best = -Infinity;
  for (const s of scores) best = Math.max(best, s);
  const ties: number[] = [];
  for (let i = 0; i < scores.length; i++) if (scores[i] === best) ties.push(i);
  return ties.length === 1 ? ties[0]! : rng.pick(ties);
}
