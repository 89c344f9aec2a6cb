import { buildSolvePrompt, type Experience } from '../../individual/agent-prompts';
import type { LanguageModel, Usage } from '../../llm/model';
import type { NicheSpec } from '../../tasks/niche';
import type { Grader, Task } from '../../tasks/task';
import type { Role, TeamMember } from '../team';

/** One model call by one member, with what the grader's extractor made of it. */
export interface Attempt {
  readonly agentId: string;
  readonly role: Role;
  /** Which step of the structure produced it (`solve`, `sample`, …) and its index. */
  readonly step: string;
  readonly index: number;
  readonly text: string;
  readonly extracted: string | null;
  readonly usage: Usage;
  /** Set when the backend failed after its retries; the attempt then counts as no answer. */
  readonly error?: string;
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
}

/**
 * Operator: one member answers the task from its persona and retrieved experience.
 * Never throws: a backend failure becomes an attempt with `error` and no answer.
 */
export async function generate(input: GenerateInput): Promise<Attempt> {
  const { model, spec, grader, task, member, experience, step, index } = input;
  const agentId = member.agent.id;
  const base = { agentId, role: member.role, step, index };
  try {
    const out = await model.complete({
      messages: buildSolvePrompt(member.agent.persona, spec, task, experience),
      stage: 'solve',
      agentId,
      taskId: task.id,
      seedKey: `${task.id}/${agentId}/${step}/${index}`,
    });
    return { ...base, text: out.text, extracted: grader.extract(out.text), usage: out.usage };
  } catch (err) {
    return { ...base, text: '', extracted: null, usage: { promptTokens: 0, completionTokens: 0 }, error: String((err as Error)?.message ?? err) };
  }
}
