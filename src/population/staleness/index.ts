import type { Knob } from '../../core/knob';
import { full } from './full';
import { guarded } from './guarded';
import type { StalenessPolicy } from './policy';
import { reflective } from './reflective';

/** The staleness policies (docs/how-it-works.md, "Staleness policies"), one descriptor file each, in the order docs list them. */
export const STALENESS_POLICIES: readonly StalenessPolicy[] = [full, guarded, reflective];

/** Their names, in registry order (the scenario schema and the CLI check against these). */
export const STALENESS_POLICY_NAMES: readonly string[] = STALENESS_POLICIES.map((p) => p.name);

/** The policy named `name`; throws naming the known ones for any other name. */
export function getStalenessPolicy(name: string): StalenessPolicy {
  const p = STALENESS_POLICIES.find((x) => x.name === name);
  if (!p) throw new Error(`unknown staleness policy "${name}" (policies: ${STALENESS_POLICY_NAMES.join(', ')})`);
  return p;
}

/** The staleness settings a meta-editor may change between segments. */
export const STALENESS_KNOBS: readonly Knob[] = [
  { kind: 'enum', path: 'engine.staleness.policy', values: STALENESS_POLICY_NAMES, description: 'what becomes of lessons and insights applied after the pool moved on' },
  { kind: 'int', path: 'engine.staleness.tau', min: 0, max: 64, description: 'version gap the policy tolerates unexamined' },
];
