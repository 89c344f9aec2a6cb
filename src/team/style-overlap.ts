import { competenceOf } from '../individual/competence';
import type { AgentView } from '../individual/agent-view';

/**
 * Style overlap O[i][j]: the cosine of two agents' competence vectors over the given niches
 * (unseen niches at c0). Derived from competence every time, never stored. 1 for identical
 * profiles; 0 when either vector is all zeros.
 */
export function styleOverlap(a: AgentView, b: AgentView, niches: readonly string[], c0: number): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (const n of niches) {
    const x = competenceOf(a, n, c0);
    const y = competenceOf(b, n, c0);
    dot += x * y;
    na += x * x;
    nb += y * y;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}

/** Every niche any agent of the roster has a competence for, sorted (the overlap's vector space). */
export function rosterNiches(roster: readonly AgentView[]): string[] {
  const set = new Set<string>();
  for (const a of roster) for (const n of Object.keys(a.competence)) set.add(n);
  return [...set].sort();
}
