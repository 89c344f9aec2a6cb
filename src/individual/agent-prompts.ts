import type { ChatMessage } from '../llm/model';
import type { NicheSpec } from '../tasks/niche';
import type { Task } from '../tasks/task';
import type { ArchiveEntry } from './archive';
import { clip, stripThinking } from '../core/text';
import { renderTemplate } from '../core/template';
import { promptTemplate } from '../llm/prompt-kinds';

const SOLVE_TEMPLATE = promptTemplate(import.meta.url, 'solve', 'solve');
const REFLECT_TEMPLATE = promptTemplate(import.meta.url, 'reflect', 'reflect');

/** What an agent retrieved from its archive for one task. */
export interface Experience {
  readonly lessons: readonly ArchiveEntry[];
  readonly meta: readonly ArchiveEntry[];
}

/** The empty experience (agents without memory). */
export const NO_EXPERIENCE: Experience = { lessons: [], meta: [] };

/** The area line shown in prompts: niche title and description. */
export function area(spec: NicheSpec): string {
  return `${spec.title}: ${spec.description}`;
}

/** Render retrieved experience as the bullet list both prompts show. */
export function formatExperience(exp: Experience): string {
  if (exp.lessons.length === 0 && exp.meta.length === 0) return '(none yet)';
  const parts: string[] = [];
  if (exp.lessons.length > 0) parts.push('Lessons for this area:', ...exp.lessons.map((e) => `- ${e.text}`));
  if (exp.meta.length > 0) parts.push('General insights:', ...exp.meta.map((e) => `- ${e.text}`));
  return parts.join('\n');
}

/** Render a code task's public example tests (empty for other domains). */
export function formatPublicTests(task: Task): string {
  if (!task.publicTests || task.publicTests.length === 0) return '';
  return `\nExamples your function must satisfy:\n${task.publicTests.join('\n')}\n`;
}

/** The solve prompt: persona as the system message, area, experience, task and answer format. */
export function buildSolvePrompt(persona: string, spec: NicheSpec, task: Task, exp: Experience): ChatMessage[] {
  const user = renderTemplate(SOLVE_TEMPLATE.text(), {
    area: area(spec),
    experience: formatExperience(exp),
    question: task.question,
    publicTests: formatPublicTests(task),
    answerFormat: spec.answerFormat,
  });
  return [
    { role: 'system', content: persona },
    { role: 'user', content: user },
  ];
}

/** Inputs of one member's reflection. Feedback is the reward (and public-test output), never the gold. */
export interface ReflectionInput {
  readonly persona: string;
  readonly spec: NicheSpec;
  readonly task: Task;
  readonly experience: Experience;
  readonly ownAnswer: string | null;
  readonly teamAnswer: string | null;
  /**
   * The team's final reply as written (its reasoning, clipped), so a member sees how the team got
   * there, not only what it answered: a member whose own answer failed can contrast it with a
   * teammate's that worked, as an LLM team reviewing a task does. Absent: '(not shown)'; null: the team gave no reply.
   */
  readonly teamWork?: string | null;
  readonly reward: number;
  readonly correct: boolean;
  /** Extra feedback the agent may see (e.g. public-test results); empty for none. */
  readonly feedback?: string;
  /** Added to the instructions (the procedure's `memory.reflectionNote`); none by default. */
  readonly note?: string;
}

/** The reflection prompt asking for `{"lesson", "meta"}` JSON. */
export function buildReflectPrompt(input: ReflectionInput): ChatMessage[] {
  const user = renderTemplate(REFLECT_TEMPLATE.text(), {
    area: area(input.spec),
    question: input.task.question,
    experience: formatExperience(input.experience),
    ownAnswer: clip(input.ownAnswer ?? '(no answer)', 600),
    teamAnswer: clip(input.teamAnswer ?? '(no answer)', 600),
    teamWork: input.teamWork === undefined ? '(not shown)' : input.teamWork === null ? '(no reply)' : clip(stripThinking(input.teamWork).trim() || '(nothing written)', 600),
    reward: input.reward.toFixed(2),
    verdict: input.correct ? 'solved' : input.reward > 0 ? 'partly solved' : 'not solved',
    feedback: input.feedback ? `Feedback: ${input.feedback}\n` : '',
    note: input.note ? `${input.note}\n` : '',
  });
  return [
    { role: 'system', content: input.persona },
    { role: 'user', content: user },
  ];
}
