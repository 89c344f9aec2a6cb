import type { Assembler } from './assembler';

/** Agents take tasks in turn by stream position (the `individual` preset). */
export const roundRobin: Assembler = ({ roster, task }) => {
  if (roster.length === 0) throw new Error('no active agent in the pool');
  const agent = roster[task.index % roster.length]!;
  return { members: [{ agent, role: 'solo' }] };
};
