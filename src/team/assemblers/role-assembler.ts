import { competenceOf } from '../../individual/competence';
import type { AgentView } from '../../individual/agent-view';
import { rosterNiches, styleOverlap } from '../style-overlap';
import { argmaxRandomTie, type Assembler, type AssemblerDescriptor } from './assembler';

/**
 * Anchor / complement / scout (docs/how-it-works.md), for niche n:
 *   anchor     = argmax c[n]
 *   complement = argmax_j  wc·c_j[n] + ws·S[a][j][n] − wo·O[a][j]
 *   scout      = argmax_k  wx·novelty_k[n] − wo·mean(O[k][a], O[k][j]),  novelty = 1/√(1+e_k[n])
 * Exact ties are broken uniformly at random from the seeded rng. Needs at least three agents.
 */
export const roleAssembler: Assembler = ({ task, roster, rng, synergy, weights, c0 }) => {
  if (roster.length < 3) throw new Error(`a team needs 3 active agents, the pool has ${roster.length}`);
  const n = task.niche;
  const niches = rosterNiches(roster);
  const overlap = (x: AgentView, y: AgentView) => styleOverlap(x, y, niches, c0);

  const anchorScores = roster.map((x) => competenceOf(x, n, c0));
  const anchor = roster[argmaxRandomTie(anchorScores, rng)]!;

  const rest1 = roster.filter((x) => x.id !== anchor.id);
  const compScores = rest1.map((x) => weights.wc * competenceOf(x, n, c0) + weights.ws * synergy(anchor.id, x.id) - weights.wo * overlap(anchor, x));
  const ci = argmaxRandomTie(compScores, rng);
  const complement = rest1[ci]!;

  const rest2 = rest1.filter((x) => x.id !== complement.id);
  const scoutScores = rest2.map((x) => weights.wx / Math.sqrt(1 + (x.exposure[n] ?? 0)) - weights.wo * (overlap(x, anchor) + overlap(x, complement)) / 2);
  const si = argmaxRandomTie(scoutScores, rng);
  const scout = rest2[si]!;

  return {
    members: [{ agent: anchor, role: 'anchor' }, { agent: complement, role: 'complement' }, { agent: scout, role: 'scout' }],
    scores: { [anchor.id]: Math.max(...anchorScores), [complement.id]: compScores[ci]!, [scout.id]: scoutScores[si]! },
  };
};

/** The `roles` assembler: anchor, complement, scout. */
export const roles: AssemblerDescriptor = {
  name: 'roles', assemble: roleAssembler, teamSize: 3,
  knobs: [
    { kind: 'number', path: 'team.weights.wc', min: 0, max: 3, description: 'complement: weight of competence on the niche' },
    { kind: 'number', path: 'team.weights.ws', min: 0, max: 3, description: 'complement: weight of pair synergy with the anchor' },
    { kind: 'number', path: 'team.weights.wo', min: 0, max: 3, description: 'complement and scout: penalty on style overlap' },
    { kind: 'number', path: 'team.weights.wx', min: 0, max: 3, description: 'scout: weight of novelty (under-exposure to the niche)' },
  ],
};
