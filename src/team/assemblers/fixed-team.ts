import type { Assembler } from './assembler';

/** The first three agents always, in roster order (the `structure-only` baseline: no cross-task state in who serves). */
export const fixedTeam: Assembler = ({ roster }) => {
  if (roster.length < 3) throw new Error(`a team needs 3 active agents, the pool has ${roster.length}`);
  const [a, b, c] = roster;
  return { members: [{ agent: a!, role: 'anchor' }, { agent: b!, role: 'complement' }, { agent: c!, role: 'scout' }] };
};
