import { parseScenario, type LoadedScenario } from '../engine/scenario';
import type { ScenarioInput } from '../engine/scenario-schema';
import { UsageError } from './usage';

/** The sampling flags of `run` and `ablate`, as parseArgs returns them. */
export interface SamplingFlags {
  readonly temperature?: string;
  readonly 'top-p'?: string;
  readonly 'extra-body'?: string;
}

/** parseArgs option specs of the sampling flags. */
export const SAMPLING_FLAG_OPTIONS = {
  temperature: { type: 'string' }, 'top-p': { type: 'string' }, 'extra-body': { type: 'string' },
} as const;

/** Help lines of the sampling flags. */
export const SAMPLING_FLAGS_HELP = `Sampling (default: the scenario's model.sampling; unset fields are the server's defaults):
  --temperature T           model.sampling.temperature (≥ 0; the simulator reads it too)
  --top-p P                 model.sampling.top_p (0 < P ≤ 1)
  --extra-body JSON         fields merged into every request, e.g. '{"top_k":20,"chat_template_kwargs":{"enable_thinking":false}}'
`;

function numberFlag(value: string | undefined, flag: string, ok: (n: number) => boolean, range: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || !ok(n)) throw new UsageError(`${flag} takes a number ${range}, got "${value}"`);
  return n;
}

/** Parse `--extra-body`: a JSON object, else a UsageError naming the flag. */
export function extraBodyFlag(value: string | undefined): Record<string, unknown> | undefined {
  if (value === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch (err) {
    throw new UsageError(`--extra-body takes a JSON object, got "${value.slice(0, 60)}" (${(err as Error).message})`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new UsageError(`--extra-body takes a JSON object, got ${Array.isArray(parsed) ? 'an array' : String(parsed)}`);
  return parsed as Record<string, unknown>;
}

/**
 * Apply the sampling flags to the scenario's model-wide settings (after the backend flags, so they
 * hold for whichever backend runs); unchanged when none are given. The flags win over the file's
 * model-wide values; stage overrides in the file still win over both.
 */
export function applySamplingFlags(loaded: LoadedScenario, f: SamplingFlags): LoadedScenario {
  const temperature = numberFlag(f.temperature, '--temperature', (n) => n >= 0, '≥ 0');
  const topP = numberFlag(f['top-p'], '--top-p', (n) => n > 0 && n <= 1, 'in (0, 1]');
  const extra = extraBodyFlag(f['extra-body']);
  if (temperature === undefined && topP === undefined && extra === undefined) return loaded;
  const m = loaded.scenario.model;
  const model = {
    ...m,
    sampling: { ...m.sampling, ...(temperature !== undefined ? { temperature } : {}), ...(topP !== undefined ? { top_p: topP } : {}) },
    ...(extra ? { extraBody: { ...m.extraBody, ...extra } } : {}),
  };
  const input = { ...loaded.scenario, model } as unknown as ScenarioInput;
  return parseScenario(input, `${loaded.file} (with sampling flags)`, loaded.dir);
}
