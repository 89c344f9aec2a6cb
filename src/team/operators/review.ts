import { parseJsonLoose } from '../../llm/parse-json';
import type { CodeGrader } from '../../tasks/graders';
import type { Grader, Task } from '../../tasks/task';
import { reviewPrompt, type PromptContext } from '../team-prompts';
import type { TeamMember } from '../team';
import type { LanguageModel } from '../../llm/model';
import { ask } from '../../llm/ask';
import type { Attempt } from './generate';

/** A reviewer's verdict on a candidate answer. `verdict: null` when the reply could not be parsed. */
export interface Review {
  readonly attempt: Attempt;
  readonly verdict: 'correct' | 'incorrect' | null;
  readonly feedback: string;
}

/** True when the grader can run arbitrary test lists (code graders). */
export function canRunTests(g: Grader): g is CodeGrader {
  return typeof (g as Partial<CodeGrader>).runTests === 'function';
}

/**
 * Operator: run a code task's PUBLIC tests against a candidate and render the results for a
 * reviewer. Null when the grader cannot run tests or the task has none. Hidden tests are never run here.
 */
export async function testPublic(grader: Grader, task: Task, candidate: string): Promise<string | null> {
  if (!canRunTests(grader) || !task.publicTests?.length) return null;
  const code = grader.extract(candidate);
  if (code === null) return 'No Python function could be found in the candidate answer.';
  const report = await grader.runTests(code, task.publicTests);
  const lines = report.results.map((r) => `${r.passed ? 'PASSED' : 'FAILED'}: ${r.test}${!r.passed && r.output ? ` (${r.output.trim().split('\n').pop()})` : ''}`);
  if (report.error) lines.push(`ERROR: ${report.error}`);
  return [`${report.passed}/${report.total} public tests passed.`, ...lines].join('\n');
}

/** Operator: one member reviews a candidate answer. Never throws; an unparseable verdict is null. */
export async function review(
  model: LanguageModel, task: Task, member: TeamMember, ctx: PromptContext, candidate: string, testResults: string | null, index: number,
): Promise<Review> {
  const agentId = member.agent.id;
  const reply = await ask(model, reviewPrompt(ctx, candidate, testResults), 'critic', agentId, task.id, `${task.id}/${agentId}/review/${index}`);
  const attempt: Attempt = {
    agentId, role: member.role, step: 'review', index, text: reply.text, extracted: null, usage: reply.usage,
    ...(reply.error ? { error: reply.error, status: reply.status } : {}),
  };
  const parsed = parseJsonLoose(reply.text) as { verdict?: unknown; feedback?: unknown } | undefined;
  const v = typeof parsed?.verdict === 'string' ? parsed.verdict.trim().toLowerCase() : '';
  const verdict = v === 'correct' || v === 'incorrect' ? v : null;
  const feedback = typeof parsed?.feedback === 'string' ? parsed.feedback.trim() : reply.text.trim().slice(0, 500);
  return { attempt, verdict, feedback };
}
