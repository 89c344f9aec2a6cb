import { full } from './full';
import { guarded } from './guarded';
import type { StalenessPolicy } from './policy';
import { reflective } from './reflective';

/** The staleness policies (DESIGN §7), one descriptor file each, in the order docs list them. */
export const STALENESS_POLICIES: readonly StalenessPolicy[] = [full, guarded, reflective];

/** Their names, in registry order (the scenario schema and the CLI check against these). */
export const STALENESS_POLICY_NAMES: readonly string[] = STALENESS_POLICIES.map((p) => p.name);

/** The policy named `name`; throws naming the known ones for any other name. */
export function getStalenessPolicy(name: string): StalenessPolicy {
  const p = STALENESS_POLICIES.find((x) => x.name === name);
  if (!p) throw new Error(`unknown staleness policy "${name}" (policies: ${STALENESS_POLICY_NAMES.join(', ')})`);
  return p;
}
