import { buildSolvePrompt, type Experience } from '../../individual/agent-prompts';
import type { ChatMessage, LanguageModel, Usage } from '../../llm/model';
import type { NicheSpec } from '../../tasks/niche';
import type { Grader, Task } from '../../tasks/task';
import type { Role, TeamMember } from '../team';
import { ask } from '../../llm/ask';

/** One model call by one member, with what the grader's extractor made of it. */
export interface Attempt {
  readonly agentId: string;
  readonly role: Role;
  /** Which step of the structure produced it (`solve`, `sample`, `revise-1`, `review`, …) and its index. */
  readonly step: string;
  readonly index: number;
  readonly text: string;
  /** The answer extracted from `text` (null for non-answer steps such as reviews or parts). */
  readonly extracted: string | null;
  readonly usage: Usage;
  /** Set when the backend failed after its retries; the attempt then counts as no answer. */
  readonly error?: string;
  /** The HTTP status behind `error`, when known (a refused request: see team/structure-cooldown.ts). */
  readonly status?: number;
  /**
   * Set when the call was cancelled because the structure's answer was already decided
   * (speculative completion): no text, no answer, and no error — the member did not answer, it did
   * not fail. Structures leave such a member out of `memberAnswers`.
   */
  readonly cancelled?: true;
}

/** What `generate` needs. */
export interface GenerateInput {
  readonly model: LanguageModel;
  readonly spec: NicheSpec;
  readonly grader: Grader;
  readonly task: Task;
  readonly member: TeamMember;
  readonly experience: Experience;
  readonly step: string;
  readonly index: number;
  /** A prompt other than the plain solve prompt (revisions, synthesis); its reply is still an answer. */
  readonly messages?: readonly ChatMessage[];
  /** Cancels the call once its answer is no longer needed; the attempt is then `cancelled`. */
  readonly signal?: AbortSignal;
}

/**
 * Operator: one member answers the task (by default from the solve prompt with its persona and
 * retrieved experience). Never throws: a backend failure becomes an attempt with `error` and no
 * answer, a cancelled call an attempt with `cancelled` and no answer.
 */
export async function generate(input: GenerateInput): Promise<Attempt> {
  const { model, spec, grader, task, member, experience, step, index } = input;
  const agentId = member.agent.id;
  const messages = input.messages ?? buildSolvePrompt(member.agent.persona, spec, task, experience);
  // A reply the token limit cut off is an answer only where the niche's reading finds one it had committed to.
  const holdsAnswer = grader.holdsAnswerWhenCut ? (text: string) => grader.holdsAnswerWhenCut!(text) : undefined;
  const reply = await ask(model, messages, 'solve', agentId, task.id, `${task.id}/${agentId}/${step}/${index}`, input.signal, holdsAnswer);
  if (reply.aborted) return { agentId, role: member.role, step, index, text: '', extracted: null, usage: reply.usage, cancelled: true };
  return {
    agentId, role: member.role, step, index, text: reply.text,
    extracted: reply.error ? null : grader.extract(reply.text), usage: reply.usage,
    ...(reply.error ? { error: reply.error, status: reply.status } : {}),
  };
}
