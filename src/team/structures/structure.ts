import type { Experience } from '../../individual/agent-prompts';
import type { Rng } from '../../engine/rng';
import type { LanguageModel } from '../../llm/model';
import type { NicheSpec } from '../../tasks/niche';
import type { Grader, Task } from '../../tasks/task';
import type { Attempt } from '../operators/generate';
import type { Team } from '../team';

/** Everything a structure may use for one task. */
export interface StructureContext {
  readonly task: Task;
  readonly spec: NicheSpec;
  readonly grader: Grader;
  readonly model: LanguageModel;
  readonly team: Team;
  /** What each member retrieved from its own archive for this task. */
  readonly experience: (agentId: string) => Experience;
  readonly rng: Rng;
  /** Structure options from the scenario (e.g. `samples` for self-consistency). */
  readonly options: { readonly samples: number };
}

/** One member's final answer. */
export interface MemberAnswer {
  readonly text: string;
  readonly extracted: string | null;
}

/** A structure's result: the team's answer, every attempt, each member's final answer. */
export interface StructureResult {
  /** Raw completion text of the team's final answer (what the grader grades). */
  readonly finalText: string | null;
  /** Every model call the structure made, in order. */
  readonly attempts: readonly Attempt[];
  /** Each member's own final answer: the raw text and what was extracted (null: none). */
  readonly memberAnswers: Readonly<Record<string, MemberAnswer>>;
  /** Members' (or samples') final answers were not all equivalent. */
  readonly disagreement: boolean;
}

/** A collaboration structure. Contract: never throws for a malformed or failed member reply. */
export type Structure = (ctx: StructureContext) => Promise<StructureResult>;
