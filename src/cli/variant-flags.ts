import { PRESETS } from '../engine/scenario/presets';
import { UsageError } from './usage';

/** Check `--variant` / `--variants` names against the presets: a UsageError naming the unknown one. */
export function variantFlags(names: readonly string[] | undefined, flag: string): void {
  const bad = names?.find((n) => !Object.hasOwn(PRESETS, n));
  if (bad !== undefined) throw new UsageError(`${flag}: unknown variant "${bad}" (variants: ${Object.keys(PRESETS).join(', ')})`);
}
