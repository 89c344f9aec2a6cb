import type { AssemblerDescriptor } from './assembler';
import { firstAgentAssembler } from './first-agent';
import { fixedTeamAssembler } from './fixed-team';
import { randomTeamAssembler } from './random-team';
import { roles } from './role-assembler';
import { roundRobinAssembler } from './round-robin';

/** The built-in team assemblers, one descriptor file each. */
export const BUILTIN_ASSEMBLERS: readonly AssemblerDescriptor[] = [firstAgentAssembler, roundRobinAssembler, roles, randomTeamAssembler, fixedTeamAssembler];

/** Built-in assemblers by name, with the team size each produces (derived from the descriptors). */
export const ASSEMBLERS: Readonly<Record<string, AssemblerDescriptor>> = Object.fromEntries(BUILTIN_ASSEMBLERS.map((d) => [d.name, d]));
