import type { ChatMessage } from '../model';

/** The kinds of request the simulator recognises, by the headings real prompts carry. */
export type RequestKind = 'solve' | 'reflect' | 'unknown';

/** A prompt split the way the simulator reads it. */
export interface ReadPrompt {
  readonly kind: RequestKind;
  /** The system message (the persona). */
  readonly persona: string;
  /** The whole user-visible text, system included. */
  readonly full: string;
  /** Text of a `## Heading` section of the user message, by heading (lower-case). */
  readonly sections: ReadonlyMap<string, string>;
}

const KIND_MARKERS: ReadonlyArray<[RequestKind, string]> = [
  ['reflect', '## reflection'],
  ['solve', '## answer format'],
];

/** Split messages into persona and sections and tell which kind of request it is. */
export function readPrompt(messages: readonly ChatMessage[]): ReadPrompt {
  const persona = messages.filter((m) => m.role === 'system').map((m) => m.content).join('\n');
  const user = messages.filter((m) => m.role !== 'system').map((m) => m.content).join('\n');
  const sections = new Map<string, string>();
  const parts = user.split(/^## /m);
  for (const part of parts.slice(1)) {
    const nl = part.indexOf('\n');
    const head = (nl < 0 ? part : part.slice(0, nl)).trim().toLowerCase();
    sections.set(head, nl < 0 ? '' : part.slice(nl + 1));
  }
  const lower = user.toLowerCase();
  const kind = KIND_MARKERS.find(([, marker]) => lower.includes(marker))?.[0] ?? 'unknown';
  return { kind, persona, full: `${persona}\n${user}`, sections };
}
