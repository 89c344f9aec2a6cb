import type { Responder } from './responder';

/**
 * Answers a persona-writing prompt: keeps the current persona's first sentence and adds one that
 * names the area and its first keywords (read from the prompt), so the persona now matches that niche.
 */
export const personaResponder: Responder = ({ prompt, params, rng }) => {
  const body = prompt.sections.get('write a persona') ?? '';
  const current = /Current persona:\n([^\n]*)/.exec(body)?.[1]?.trim() ?? 'You are a careful problem solver.';
  const area = /Area: ([^:\n]*)/.exec(body)?.[1]?.trim() ?? 'this area';
  const keywords = (/Keywords of the area: ([^\n]*)/.exec(body)?.[1] ?? '').split(',').map((k) => k.trim()).filter(Boolean);
  const first = current.split(/(?<=\.)\s/)[0] ?? current;
  const persona = `${first} You specialise in ${area.toLowerCase()}${keywords.length ? ` (${keywords.slice(0, 3).join(', ')})` : ''} and bring that expertise to every task in it.`;
  if (rng.chance(params.malformed)) return { text: persona, lengthClass: 'json' };
  return { text: JSON.stringify({ persona }), lengthClass: 'json' };
};
