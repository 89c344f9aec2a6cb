import { parseScenario, type LoadedScenario } from '../engine/scenario/scenario';
import type { ScenarioInput } from '../engine/scenario/scenario-schema';
import { samplingSchema } from '../llm/sampling-fields';
import { UsageError } from './usage';

/** The sampling flags of `run` and `ablate`, as parseArgs returns them. */
export interface SamplingFlags {
  readonly temperature?: string;
  readonly 'top-p'?: string;
  readonly 'extra-body'?: string;
  readonly sampling?: string;
}

/** parseArgs option specs of the sampling flags. */
export const SAMPLING_FLAG_OPTIONS = {
  temperature: { type: 'string' }, 'top-p': { type: 'string' }, 'extra-body': { type: 'string' }, sampling: { type: 'string' },
} as const;

/** Help lines of the sampling flags. */
export const SAMPLING_FLAGS_HELP = `Sampling (default: the scenario's model.sampling; unset fields are the server's defaults):
  --temperature T           model.sampling.temperature (0 to 2; the simulator reads it too)
  --top-p P                 model.sampling.top_p (0 < P ≤ 1)
  --extra-body JSON         fields merged into every request, e.g. '{"chat_template_kwargs":{"enable_thinking":false}}'
  --sampling JSON           model.sampling fields, e.g. '{"top_k":20,"min_p":0,"max_tokens":2048}'
                            (--temperature and --top-p win over it)
`;

function numberFlag(value: string | undefined, flag: string, ok: (n: number) => boolean, range: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || !ok(n)) throw new UsageError(`${flag} takes a number ${range}, got "${value}"`);
  return n;
}

/** Parse a JSON-object flag (`--extra-body`, `--sampling`), else a UsageError naming the flag. */
export function jsonObjectFlag(value: string | undefined, flag: string): Record<string, unknown> | undefined {
  if (value === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch (err) {
    throw new UsageError(`${flag} takes a JSON object, got "${value.slice(0, 60)}" (${(err as Error).message})`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new UsageError(`${flag} takes a JSON object, got ${Array.isArray(parsed) ? 'an array' : String(parsed)}`);
  return parsed as Record<string, unknown>;
}

/** Parse `--sampling`: a JSON object of model.sampling fields, checked field by field. */
function samplingFlag(value: string | undefined): Record<string, unknown> | undefined {
  const raw = jsonObjectFlag(value, '--sampling');
  if (raw === undefined) return undefined;
  const parsed = samplingSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const field = issue.code === 'unrecognized_keys' ? issue.keys[0] : issue.path.join('.');
    throw new UsageError(`--sampling: ${field}: ${issue.code === 'unrecognized_keys' ? 'unknown field' : issue.message}`);
  }
  return parsed.data;
}

/**
 * Apply the sampling flags to the scenario's model-wide settings (after the backend flags, so they
 * hold for whichever backend runs); unchanged when none are given. The flags win over the file's
 * model-wide values; stage overrides in the file still win over both.
 */
export function applySamplingFlags(loaded: LoadedScenario, f: SamplingFlags): LoadedScenario {
  const temperature = numberFlag(f.temperature, '--temperature', (n) => n >= 0 && n <= 2, 'in [0, 2]');
  const topP = numberFlag(f['top-p'], '--top-p', (n) => n > 0 && n <= 1, 'in (0, 1]');
  const extra = jsonObjectFlag(f['extra-body'], '--extra-body');
  const sampling = samplingFlag(f.sampling);
  if (temperature === undefined && topP === undefined && extra === undefined && sampling === undefined) return loaded;
  const m = loaded.scenario.model;
  const model = {
    ...m,
    sampling: { ...m.sampling, ...sampling, ...(temperature !== undefined ? { temperature } : {}), ...(topP !== undefined ? { top_p: topP } : {}) },
    ...(extra ? { extraBody: { ...m.extraBody, ...extra } } : {}),
  };
  const input = { ...loaded.scenario, model } as unknown as ScenarioInput;
  return parseScenario(input, `${loaded.file} (with sampling flags)`, loaded.dir);
}
