import type { Domain, Grader, Task } from './task';
import type { Rng } from '../core/rng';

/** Everything a generator must produce for one task; the stream fills in id, index and block. */
export type GeneratedTask = Omit<Task, 'id' | 'index' | 'block' | 'niche' | 'domain'>;

/**
 * A task generator for a built-in niche. Contract: deterministic for the same rng state and
 * difficulty; the produced hidden answer is verifiably correct under the niche's grader, and
 * every distractor is verifiably wrong.
 */
export type TaskGenerator = (difficulty: number, rng: Rng) => GeneratedTask;

/** The on-disk definition of a niche (`niches/*.json`), validated on load. */
export interface NicheSpec {
  readonly id: string;
  readonly domain: Domain;
  readonly title: string;
  /** One line describing the niche; rendered into prompts as the task's area. */
  readonly description: string;
  /** Words a persona aimed at this niche would mention. */
  readonly keywords: readonly string[];
  /** The group of niches it belongs to, if any (a target may name the group: src/tasks/niche-groups.ts). */
  readonly group?: string;
  /** Built-in generator name (see `src/tasks/generators/`), or absent for dataset niches. */
  readonly generator?: string;
  /** Dataset source for dataset niches. */
  readonly dataset?: { readonly format: string; readonly path: string };
  /** Difficulty levels this niche can produce. */
  readonly difficulties: readonly number[];
  /** Instruction telling the agent how to format its final answer. */
  readonly answerFormat: string;
}

/** A niche ready to use: its spec, a task source and the grader for its domain. */
export interface Niche {
  readonly spec: NicheSpec;
  readonly grader: Grader;
  /** Produce the task body for a difficulty level (generated niches) or the i-th row (datasets). */
  next(difficulty: number, rng: Rng): GeneratedTask;
  /** Dataset niches: malformed rows skipped when loading (reported, never silent). */
  readonly skippedRows?: number;
  /** Dataset niches: how many distinct rows the stream can draw (at its levels) before rows repeat. */
  readonly rows?: number;
}
