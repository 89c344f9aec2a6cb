import type { Knob } from '../../core/knob';
import { Registry } from '../../core/registry';
import { full } from './full';
import { guarded } from './guarded';
import type { StalenessPolicy } from './policy';
import { reflective } from './reflective';

/** The staleness policies (docs/how-it-works.md, "Staleness policies"), one descriptor file each, in the order docs list them. */
export const STALENESS_POLICIES: readonly StalenessPolicy[] = [full, guarded, reflective];

/** The policies of this process: the built-in ones, then those `registerStalenessPolicy` added. */
export const STALENESS_POLICY_KINDS = new Registry<StalenessPolicy>('staleness policy', STALENESS_POLICIES);

/** Their names, in registry order (the scenario schema and the CLI check against these; follows `registerStalenessPolicy`). */
export const STALENESS_POLICY_NAMES: readonly string[] = STALENESS_POLICIES.map((p) => p.name);
STALENESS_POLICY_KINDS.onRegister((p) => { (STALENESS_POLICY_NAMES as string[]).push(p.name); });

/** Add a staleness policy for every later run of this process (`engine.staleness.policy` names it; the same object again does nothing). */
export function registerStalenessPolicy(p: StalenessPolicy): void {
  STALENESS_POLICY_KINDS.register(p);
}

/** The policy named `name`; throws naming the known ones for any other name. */
export function getStalenessPolicy(name: string): StalenessPolicy {
  const p = STALENESS_POLICY_KINDS.get(name);
  if (!p) throw new Error(`unknown staleness policy "${name}" (policies: ${STALENESS_POLICY_NAMES.join(', ')})`);
  return p;
}

/** The staleness settings a meta-editor may change between segments. */
export const STALENESS_KNOBS: readonly Knob[] = [
  { kind: 'enum', path: 'engine.staleness.policy', values: STALENESS_POLICY_NAMES, description: 'what becomes of lessons and insights applied after the pool moved on' },
  { kind: 'int', path: 'engine.staleness.tau', min: 0, max: 64, description: 'version gap the policy tolerates unexamined' },
];
