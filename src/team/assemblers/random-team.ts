import type { Assembler, AssemblerDescriptor } from './assembler';

/** Three agents drawn uniformly at random (the `no-team` ablation); the first drawn leads. */
export const randomTeam: Assembler = ({ roster, rng }) => {
  if (roster.length < 3) throw new Error(`a team needs 3 active agents, the pool has ${roster.length}`);
  const [a, b, c] = rng.shuffle(roster);
  return { members: [{ agent: a!, role: 'anchor' }, { agent: b!, role: 'complement' }, { agent: c!, role: 'scout' }] };
};

/** The `random-team` assembler. */
export const randomTeamAssembler: AssemblerDescriptor = { name: 'random-team', assemble: randomTeam, teamSize: 3 };
