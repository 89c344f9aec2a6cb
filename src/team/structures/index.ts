import { debate } from './debate';
import { decompose } from './decompose';
import { generatorCritic } from './generator-critic';
import { selfConsistency } from './self-consistency';
import { single } from './single';
import type { Structure, StructureDescriptor } from './structure';
import { voting } from './voting';

/**
 * The built-in collaboration structures, one descriptor file each. The order is the order the
 * leader's prompt lists the choosable ones in, the bank's statistics are shown in and the random
 * chooser draws from: append, never reorder (a reorder changes every seeded run).
 */
export const BUILTIN_STRUCTURES: readonly StructureDescriptor[] = [single, selfConsistency, voting, debate, generatorCritic, decompose];

/** The structures one run may use, by name, in registration order. */
export type StructureRegistry = ReadonlyMap<string, StructureDescriptor>;

/**
 * The registry of the built-in structures plus `extra` ones (appended in the order given). Throws
 * on a duplicate or malformed name: a structure's name is how presets, the bank and the leader's
 * reply refer to it, so two with one name could never be told apart.
 */
export function structureRegistry(extra: readonly StructureDescriptor[] = []): StructureRegistry {
  const out = new Map<string, StructureDescriptor>();
  for (const d of [...BUILTIN_STRUCTURES, ...extra]) {
    if (!/^[a-z][a-z0-9-]*$/.test(d.name)) throw new Error(`structure name "${d.name}" must be lower-case letters, digits and dashes`);
    if (out.has(d.name)) throw new Error(`two structures are named "${d.name}"`);
    out.set(d.name, d);
  }
  return out;
}

/** The registry of the built-in structures. */
export const BUILTIN_STRUCTURE_REGISTRY: StructureRegistry = structureRegistry();

/** The structures a leader may choose from, in registration order. */
export function choosableStructures(registry: StructureRegistry = BUILTIN_STRUCTURE_REGISTRY): StructureDescriptor[] {
  return [...registry.values()].filter((d) => d.choosable);
}

/** Built-in structure functions by name (derived from the descriptors). */
export const STRUCTURES: Readonly<Record<string, Structure>> = Object.fromEntries(BUILTIN_STRUCTURES.map((d) => [d.name, d.run]));
