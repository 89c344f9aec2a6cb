import type { Knob } from '../../core/knob';
import type { Experience } from '../../individual/agent-prompts';
import type { Rng } from '../../core/rng';
import type { LanguageModel } from '../../llm/model';
import type { NicheSpec } from '../../tasks/niche';
import type { Grader, Task } from '../../tasks/task';
import type { Attempt } from '../operators/generate';
import type { Team, TeamMember } from '../team';
import type { PromptContext } from '../team-prompts';

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
  /** Structure options from the scenario: self-consistency samples, debate rounds, speculative completion (default on). */
  readonly options: { readonly samples: number; readonly debateRounds: number; readonly speculative?: boolean };
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
  /**
   * Every model call the structure made, in order. A call cancelled once the answer was decided
   * (speculative completion) is an attempt with `cancelled: true`, no text and no answer: not an
   * error, not a failed call.
   */
  readonly attempts: readonly Attempt[];
  /**
   * Each member's own final answer: the raw text and what was extracted (null: none). A member
   * whose only answer was cancelled has no entry (it did not answer; graders and CoDream fall back
   * to the team's grade for it).
   */
  readonly memberAnswers: Readonly<Record<string, MemberAnswer>>;
  /** Members' (or samples') final answers were not all equivalent (generator-critic: a reviewer rejected the answer). */
  readonly disagreement: boolean;
  /** Rounds the structure planned but did not run because the answer was already settled (debate's early consensus); absent when none. */
  readonly earlyStop?: EarlyStop;
}

/** Rounds a structure skipped, and an estimate of the completion tokens that saved. */
export interface EarlyStop {
  readonly roundsSkipped: number;
  /** Estimate: the completion tokens of the last round actually run × `roundsSkipped`. */
  readonly tokensSaved: number;
}

/** The members of a result whose answer call was cancelled (speculative completion) and who gave no other answer. */
export function cancelledMembers(result: StructureResult): Set<string> {
  const answered = new Set(result.attempts.filter((a) => !a.cancelled).map((a) => a.agentId));
  return new Set(result.attempts.filter((a) => a.cancelled && !answered.has(a.agentId)).map((a) => a.agentId));
}

/** The prompt context of one member for this task. */
export function memberContext(ctx: StructureContext, member: TeamMember): PromptContext {
  return { persona: member.agent.persona, spec: ctx.spec, task: ctx.task, experience: ctx.experience(member.agent.id) };
}

/** A collaboration structure. Contract: never throws for a malformed or failed member reply. */
export type Structure = (ctx: StructureContext) => Promise<StructureResult>;

/**
 * A collaboration structure, described in one file: everything the engine, LeadLearn's prompt and
 * bank, the choosers and the presets need to know about it. Registries are derived from these
 * (`src/team/structures/index.ts`); adding a structure is one file plus its line in that list, or,
 * for a run only, `RunOptions.structures`.
 */
export interface StructureDescriptor {
  /** The name presets, the bank, the leader's reply and the summary use. */
  readonly name: string;
  /**
   * One line addressed to the leader, shown in the choose-structure prompt as `- name: description`.
   * May use the prompt's placeholders (`{{rounds}}`, `{{teamSize}}`).
   */
  readonly description: string;
  /** Offered to the leader (LeadLearn, zero-shot) and drawn by the random chooser; otherwise only a preset's fixed structure. */
  readonly choosable: boolean;
  /** Runs the structure on one task. */
  readonly run: Structure;
  /** Its settings a meta-editor may change between segments, with their bounds (scenario paths). */
  readonly knobs?: readonly Knob[];
}
