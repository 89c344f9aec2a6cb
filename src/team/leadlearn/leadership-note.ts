import { area } from '../../individual/agent-prompts';
import { renderTemplate } from '../../core/template';
import { promptTemplate } from '../../llm/prompt-kinds';
import type { LanguageModel, Usage } from '../../llm/model';
import { stripThinking } from '../../core/text';
import type { NicheSpec } from '../../tasks/niche';
import type { Task } from '../../tasks/task';
import { ask } from '../../llm/ask';

const NOTE_TEMPLATE = promptTemplate(import.meta.url, 'leadership-note', 'note');

/** What the leader writes into the bank after a task. */
export interface LeadershipNote {
  readonly note: string;
  readonly usage: Usage;
  /** Set when the leader's call failed after its retries (the note is then empty: a fallback). */
  readonly error?: string;
}

/** Ask the leader for a one-line note on why the structure worked or failed; a failed call gives an empty note. */
export async function writeLeadershipNote(
  model: LanguageModel, leader: { id: string; persona: string }, spec: NicheSpec, task: Task, structure: string, reward: number, disagreement: boolean,
): Promise<LeadershipNote> {
  const user = renderTemplate(NOTE_TEMPLATE.text(), {
    area: area(spec), structure, reward: reward.toFixed(2), disagreement: disagreement ? 'yes' : 'no',
  });
  const reply = await ask(model, [{ role: 'system', content: leader.persona }, { role: 'user', content: user }], 'leadlearn', leader.id, task.id, `${task.id}/${leader.id}/note`);
  const line = stripThinking(reply.text).split('\n').map((l) => l.trim()).find((l) => l.length > 0) ?? '';
  return { note: line.replace(/"/g, "'").slice(0, 200), usage: reply.usage, ...(reply.error ? { error: reply.error } : {}) };
}
