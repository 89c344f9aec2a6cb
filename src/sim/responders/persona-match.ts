import type { SimNiche } from '../side-channel';

/** True when the persona names one of the niche's keywords as a word. */
export function personaMatches(persona: string, spec: SimNiche): boolean {
  const lower = persona.toLowerCase();
  return spec.keywords.some((k) => new RegExp(`\\b${k.toLowerCase().replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\b`).test(lower));
}
