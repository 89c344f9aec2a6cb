import { Registry } from '../../core/registry';
import type { AssemblerDescriptor } from './assembler';
import { firstAgentAssembler } from './first-agent';
import { fixedTeamAssembler } from './fixed-team';
import { randomTeamAssembler } from './random-team';
import { roles } from './role-assembler';
import { roundRobinAssembler } from './round-robin';

/** The built-in team assemblers, one descriptor file each. */
export const BUILTIN_ASSEMBLERS: readonly AssemblerDescriptor[] = [firstAgentAssembler, roundRobinAssembler, roles, randomTeamAssembler, fixedTeamAssembler];

/** The assemblers of this process: the built-in ones, then those `registerAssembler` added. */
export const ASSEMBLER_KINDS = new Registry<AssemblerDescriptor>('assembler', BUILTIN_ASSEMBLERS);

/** Registered assemblers by name, with the team size each produces (derived from the descriptors; follows `registerAssembler`). */
export const ASSEMBLERS: Readonly<Record<string, AssemblerDescriptor>> = Object.fromEntries(BUILTIN_ASSEMBLERS.map((d) => [d.name, d]));
ASSEMBLER_KINDS.onRegister((d) => { (ASSEMBLERS as Record<string, AssemblerDescriptor>)[d.name] = d; });

/** Add an assembler for every later run of this process (a preset names it in `assembler`; the same object again does nothing). */
export function registerAssembler(d: AssemblerDescriptor): void {
  ASSEMBLER_KINDS.register(d);
}
