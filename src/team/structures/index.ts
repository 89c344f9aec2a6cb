import { debate } from './debate';
import { decompose } from './decompose';
import { generatorCritic } from './generator-critic';
import { selfConsistency } from './self-consistency';
import { single } from './single';
import { Registry } from '../../core/registry';
import type { Structure, StructureDescriptor } from './structure';
import { voting } from './voting';

/**
 * The built-in collaboration structures, one descriptor file each. The order is the order the
 * leader's prompt lists the choosable ones in, the bank's statistics are shown in and the random
 * chooser draws from: append, never reorder (a reorder changes every seeded run).
 */
export const BUILTIN_STRUCTURES: readonly StructureDescriptor[] = [single, selfConsistency, voting, debate, generatorCritic, decompose];

/** The structures of this process: the built-in ones, then those `registerStructure` added. */
export const STRUCTURE_KINDS = new Registry<StructureDescriptor>('structure', BUILTIN_STRUCTURES);

/**
 * Add a structure for every later run of this process (after the built-in ones, in registration
 * order; the same object again does nothing). A choosable one is offered to the leader and gets its
 * `fixed-<name>` preset. For one run only, pass it in `RunOptions.structures` instead.
 */
export function registerStructure(d: StructureDescriptor): void {
  STRUCTURE_KINDS.register(d);
}

/** The structures one run may use, by name, in registration order. */
export type StructureRegistry = ReadonlyMap<string, StructureDescriptor>;

/**
 * The registry of the registered structures plus `extra` ones (appended in the order given). Throws
 * on a duplicate or malformed name: a structure's name is how presets, the bank and the leader's
 * reply refer to it, so two with one name could never be told apart.
 */
export function structureRegistry(extra: readonly StructureDescriptor[] = []): StructureRegistry {
  const out = new Map<string, StructureDescriptor>();
  // A run's own structure that is registered already (the same object) is the registered one.
  for (const d of [...STRUCTURE_KINDS.list(), ...extra.filter((x) => !STRUCTURE_KINDS.list().includes(x))]) {
    if (!/^[a-z][a-z0-9-]*$/.test(d.name)) throw new Error(`structure name "${d.name}" must be lower-case letters, digits and dashes`);
    if (out.has(d.name)) throw new Error(`two structures are named "${d.name}"`);
    out.set(d.name, d);
  }
  return out;
}

/** The registry of the registered structures (follows `registerStructure`). */
export const BUILTIN_STRUCTURE_REGISTRY: StructureRegistry = structureRegistry();
STRUCTURE_KINDS.onRegister((d) => (BUILTIN_STRUCTURE_REGISTRY as Map<string, StructureDescriptor>).set(d.name, d));

/** The structures a leader may choose from, in registration order. */
export function choosableStructures(registry: StructureRegistry = BUILTIN_STRUCTURE_REGISTRY): StructureDescriptor[] {
  return [...registry.values()].filter((d) => d.choosable);
}

/** Registered structure functions by name (derived from the descriptors; follows `registerStructure`). */
export const STRUCTURES: Readonly<Record<string, Structure>> = Object.fromEntries(BUILTIN_STRUCTURES.map((d) => [d.name, d.run]));
STRUCTURE_KINDS.onRegister((d) => { (STRUCTURES as Record<string, Structure>)[d.name] = d.run; });
