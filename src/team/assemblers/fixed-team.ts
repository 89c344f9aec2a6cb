import type { Assembler, AssemblerDescriptor } from './assembler';

/** The first three agents always, in roster order (the `structure-only` baseline: no cross-task state in who serves). */
export const fixedTeam: Assembler = ({ roster }) => {
  if (roster.length < 3) throw new Error(`a team needs 3 active agents, the pool has ${roster.length}`);
  const [a, b, c] = roster;
  return { members: [{ agent: a!, role: 'anchor' }, { agent: b!, role: 'complement' }, { agent: c!, role: 'scout' }] };
};

/** The `fixed-team` assembler. */
export const fixedTeamAssembler: AssemblerDescriptor = { name: 'fixed-team', assemble: fixedTeam, teamSize: 3 };
