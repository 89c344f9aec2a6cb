import { area } from '../../individual/agent-prompts';
import { renderTemplate } from '../../core/template';
import { promptTemplate } from '../../llm/prompt-kinds';
import type { LanguageModel } from '../../llm/model';
import { parseJsonLoose } from '../../llm/parse-json';
import type { NicheSpec } from '../../tasks/niche';
import { ask } from '../../llm/ask';
import type { AgentView } from '../../individual/agent-view';

const PERSONA_TEMPLATE = promptTemplate(import.meta.url, 'persona', 'persona');

/** Parse a persona reply: the JSON field, or the plain text when it reads like a persona. */
export function parsePersona(text: string): string | null {
  const parsed = parseJsonLoose(text) as { persona?: unknown } | undefined;
  if (typeof parsed?.persona === 'string' && parsed.persona.trim()) return parsed.persona.trim();
  const plain = text.trim();
  return /^You\b/.test(plain) && plain.length < 1000 ? plain : null;
}

/**
 * Ask the agent's model to write a persona for `purpose`, aimed at a niche (genesis, fork,
 * specialize). An unusable reply keeps the current persona rather than inventing one.
 */
export async function writePersona(model: LanguageModel, agent: AgentView, spec: NicheSpec, purpose: string, tag: string, note?: string): Promise<string> {
  const user = renderTemplate(PERSONA_TEMPLATE.text(), {
    purpose, persona: agent.persona, area: area(spec), keywords: spec.keywords.join(', '), note: note ? `${note}\n` : '',
  });
  const r = await ask(model, [{ role: 'system', content: agent.persona }, { role: 'user', content: user }], 'lifecycle', agent.id, `lifecycle-${tag}`, `lifecycle/${tag}/${agent.id}`);
  return parsePersona(r.text) ?? agent.persona;
}
