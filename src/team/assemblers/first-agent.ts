import type { Assembler, AssemblerDescriptor } from './assembler';

/** The first active agent works alone (single-agent and self-consistency baselines). */
export const firstAgent: Assembler = ({ roster }) => {
  const agent = roster[0];
  if (!agent) throw new Error('no active agent in the pool');
  return { members: [{ agent, role: 'solo' }] };
};

/** The `first-agent` assembler. */
export const firstAgentAssembler: AssemblerDescriptor = { name: 'first-agent', assemble: firstAgent, teamSize: 1 };
