import { area, formatExperience, formatPublicTests, type Experience } from '../individual/agent-prompts';
import { clip } from '../core/text';
import { renderTemplate } from '../core/template';
import type { ChatMessage } from '../llm/model';
import { PROMPT_FRAGMENT, promptTemplate, type PromptTemplate } from '../llm/prompt-kinds';
import type { NicheSpec } from '../tasks/niche';
import type { Task } from '../tasks/task';

/** Who is asking and about what: persona, niche, task and the asker's own retrieved experience. */
export interface PromptContext {
  readonly persona: string;
  readonly spec: NicheSpec;
  readonly task: Task;
  readonly experience: Experience;
}

/** The team's templates, each with the kind of request it is; `context` opens every one of them. */
const TEMPLATES = {
  context: promptTemplate(import.meta.url, 'context', PROMPT_FRAGMENT),
  'revise-debate': promptTemplate(import.meta.url, 'revise-debate', 'revise'),
  review: promptTemplate(import.meta.url, 'review', 'review'),
  'revise-feedback': promptTemplate(import.meta.url, 'revise-feedback', 'revise'),
  decompose: promptTemplate(import.meta.url, 'decompose', 'decompose'),
  'solve-part': promptTemplate(import.meta.url, 'solve-part', 'part'),
  synthesize: promptTemplate(import.meta.url, 'synthesize', 'synthesize'),
} satisfies Record<string, PromptTemplate>;

function messages(ctx: PromptContext, template: Exclude<keyof typeof TEMPLATES, 'context'>, values: Record<string, string>): ChatMessage[] {
  const context = renderTemplate(TEMPLATES.context.text(), {
    area: area(ctx.spec), experience: formatExperience(ctx.experience), question: ctx.task.question, publicTests: formatPublicTests(ctx.task),
  });
  return [
    { role: 'system', content: ctx.persona },
    { role: 'user', content: renderTemplate(TEMPLATES[template].text(), { context, answerFormat: ctx.spec.answerFormat, ...values }) },
  ];
}

/** Debate revision: the member's previous answer and its teammates' answers. */
export function reviseDebatePrompt(ctx: PromptContext, previous: string, others: readonly string[], round: number): ChatMessage[] {
  return messages(ctx, 'revise-debate', {
    previous: clip(previous || '(no answer)', 1500),
    others: others.map((o, i) => `Teammate ${i + 1}:\n${clip(o || '(no answer)', 1000)}`).join('\n\n'),
    round: String(round),
  });
}

/** A reviewer's prompt: the candidate answer and, for code, the public-test results. */
export function reviewPrompt(ctx: PromptContext, candidate: string, testResults: string | null): ChatMessage[] {
  return messages(ctx, 'review', {
    candidate: clip(candidate || '(no answer)', 1500),
    testResults: testResults ? `\n## Public test results\n${testResults}\n` : '',
  });
}

/** Revision after review: the previous answer and the reviewers' feedback. */
export function reviseFeedbackPrompt(ctx: PromptContext, previous: string, feedback: readonly string[], testResults: string | null = null): ChatMessage[] {
  return messages(ctx, 'revise-feedback', {
    previous: clip(previous || '(no answer)', 1500),
    feedback: feedback.map((f, i) => `Reviewer ${i + 1}: ${clip(f, 800)}`).join('\n'),
    testResults: testResults ? `\n## Public test results\n${testResults}\n` : '',
  });
}

/** The leader's decomposition prompt. */
export function decomposePrompt(ctx: PromptContext, parts: number): ChatMessage[] {
  return messages(ctx, 'decompose', { parts: String(parts) });
}

/** A member's sub-problem prompt. */
export function solvePartPrompt(ctx: PromptContext, part: string, index: number, total: number): ChatMessage[] {
  return messages(ctx, 'solve-part', { part: clip(part, 600), index: String(index), total: String(total) });
}

/** The leader's synthesis prompt over the members' sub-problem solutions. */
export function synthesizePrompt(ctx: PromptContext, solutions: readonly string[]): ChatMessage[] {
  return messages(ctx, 'synthesize', {
    solutions: solutions.map((s, i) => `Sub-problem ${i + 1}:\n${clip(s || '(no solution)', 1000)}`).join('\n\n'),
  });
}
