import type { ChatMessage } from '../llm/model';
import { kindOfHeadings, type RequestKind } from '../llm/prompt-kinds';

/** The kinds of request the simulator recognises: the prompt builders' own table (llm/prompt-kinds.ts). */
export type { RequestKind };

/** A prompt split the way the simulator reads it. */
export interface ReadPrompt {
  readonly kind: RequestKind;
  /** The system message (the persona). */
  readonly persona: string;
  /** The whole text, system message included. */
  readonly full: string;
  /** Text of each `## Heading` section of the user message, by heading (lower-case). */
  readonly sections: ReadonlyMap<string, string>;
}

/** Split messages into persona and sections and tell which kind of request it is. */
export function readPrompt(messages: readonly ChatMessage[]): ReadPrompt {
  const persona = messages.filter((m) => m.role === 'system').map((m) => m.content).join('\n');
  const user = messages.filter((m) => m.role !== 'system').map((m) => m.content).join('\n');
  const sections = new Map<string, string>();
  for (const part of user.split(/^## /m).slice(1)) {
    const nl = part.indexOf('\n');
    const head = (nl < 0 ? part : part.slice(0, nl)).trim().toLowerCase();
    sections.set(head, nl < 0 ? '' : part.slice(nl + 1));
  }
  const kind = kindOfHeadings((h) => sections.has(h));
  return { kind, persona, full: `${persona}\n${user}`, sections };
}

/** The agent's own knowledge in a prompt: persona plus its retrieved experience (not teammates' text). */
export function ownKnowledge(p: ReadPrompt): string {
  return `${p.persona}\n${p.sections.get('your experience') ?? ''}`;
}

const EXPERIENCE_HEADING = '## Your experience\n';

/**
 * The messages as a model with a context budget of `budget` items reads them (`contextBudget`,
 * docs/simulated-model.md): in the "Your experience" section only the first `budget` bullet items
 * (lessons, then general insights, most similar first) are kept; later items are dropped, their
 * sub-headings kept. `budget` 0 returns the messages unchanged.
 */
export function withContextBudget(messages: readonly ChatMessage[], budget: number): readonly ChatMessage[] {
  if (budget <= 0) return messages;
  return messages.map((m) => {
    const at = m.role === 'system' ? -1 : m.content.indexOf(EXPERIENCE_HEADING);
    if (at < 0) return m;
    const start = at + EXPERIENCE_HEADING.length;
    const next = m.content.indexOf('\n## ', start);
    const end = next < 0 ? m.content.length : next;
    let seen = 0;
    const kept = m.content.slice(start, end).split('\n').filter((line) => !line.startsWith('- ') || ++seen <= budget);
    return { ...m, content: `${m.content.slice(0, start)}${kept.join('\n')}${m.content.slice(end)}` };
  });
}
