import { competenceOf } from '../../individual/competence';
import { competenceMatrix, matrixOverlap, rosterNiches } from '../style-overlap';
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
  // Each agent's competence over the roster's niches, read once: the overlaps below take 3 per agent.
  const vectors = competenceMatrix(roster, niches, c0);
  const overlap = (x: number, y: number) => matrixOverlap(vectors, x, y);

  const anchorScores = roster.map((x) => competenceOf(x, n, c0));
  const a = argmaxRandomTie(anchorScores, rng);
  const anchor = roster[a]!;

  // O[a][i], kept for the scout's terms: the cosine is symmetric bit for bit (its products and
  // sums are the same whichever side comes first), so O[i][a] is the same number.
  const withAnchor: number[] = [];
  const rest1: number[] = [];
  const compScores: number[] = [];
  for (let i = 0; i < roster.length; i++) {
    withAnchor.push(i === a ? 0 : overlap(a, i));
    if (i === a) continue;
    rest1.push(i);
    compScores.push(weights.wc * anchorScores[i]! + weights.ws * synergy(anchor.id, roster[i]!.id) - weights.wo * withAnchor[i]!);
  }
  const ci = argmaxRandomTie(compScores, rng);
  const c = rest1[ci]!;
  const complement = roster[c]!;

  const rest2 = rest1.filter((i) => i !== c);
  const scoutScores = rest2.map((i) => weights.wx / Math.sqrt(1 + (roster[i]!.exposure[n] ?? 0)) - weights.wo * (withAnchor[i]! + overlap(i, c)) / 2);
  const si = argmaxRandomTie(scoutScores, rng);
  const scout = roster[rest2[si]!]!;

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
