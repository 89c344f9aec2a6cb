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
