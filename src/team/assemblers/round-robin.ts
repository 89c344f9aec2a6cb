import type { Assembler, AssemblerDescriptor } from './assembler';

/** Agents take tasks in turn by stream position (the `individual` preset). */
export const roundRobin: Assembler = ({ roster, task }) => {
  if (roster.length === 0) throw new Error('no active agent in the pool');
  const agent = roster[task.index % roster.length]!;
  return { members: [{ agent, role: 'solo' }] };
};

/** The `round-robin` assembler. */
export const roundRobinAssembler: AssemblerDescriptor = { name: 'round-robin', assemble: roundRobin, teamSize: 1 };
