/**
 * HumanEval-style completions: a model may answer with the function body only, which is what
 * HumanEval's own harness expects (it runs `prompt + completion`). When a task carries that
 * prompt (`hidden.prefix`) and the answer does not define the entry point itself, the graded
 * program is the prompt followed by the answer.
 */
import type { Task } from '../task';

const escapeRegex = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The program to grade for extracted `code`: `prefix + code` for a body-only answer, else `code`. */
export function completionProgram(code: string, task: Pick<Task, 'entryPoint' | 'hidden'>): string {
  const prefix = task.hidden.prefix;
  const entry = task.entryPoint;
  if (!prefix || !entry) return code;
  if (new RegExp(`^(async\\s+)?def\\s+${escapeRegex(entry)}\\s*\\(`, 'm').test(code)) return code;
  return `${prefix}${prefix.endsWith('\n') ? '' : '\n'}${code}`;
}

/**
 * A bare, unfenced body-only answer (first code line indented), for tasks that carry a prefix.
 * Read before the usual extraction, which trims the leading indentation such a body needs.
 */
export function bareBody(completion: string, task: Pick<Task, 'hidden'>): string | null {
  if (!task.hidden.prefix || completion.includes('```')) return null;
  const end = completion.lastIndexOf('</think>');
  const text = (end >= 0 ? completion.slice(end + '</think>'.length) : completion).replace(/^(?:[ \t]*\n)+/, '').trimEnd();
  return /^[ \t]+\S/.test(text) ? text : null;
}
