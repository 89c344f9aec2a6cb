import type { LoadedScenario } from '../engine/scenario/scenario';
import { fieldsUnder, mergePatches, scenarioPatch, type ScenarioPatch } from '../core/scenario-patch';
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
 * The sampling flags as a patch of the model-wide settings (`model.sampling.*`, `model.extraBody`),
 * applied after the backend flags' patch so they hold for whichever backend runs; empty when none
 * are given. The flags win over the file's model-wide values; stage overrides in the file still win over both.
 */
export function samplingFlagsPatch(loaded: LoadedScenario, f: SamplingFlags): ScenarioPatch {
  const temperature = numberFlag(f.temperature, '--temperature', (n) => n >= 0 && n <= 2, 'in [0, 2]');
  const topP = numberFlag(f['top-p'], '--top-p', (n) => n > 0 && n <= 1, 'in (0, 1]');
  const extra = jsonObjectFlag(f['extra-body'], '--extra-body');
  const sampling = samplingFlag(f.sampling);
  // Extra fields are merged whole (their keys are the server's and may hold dots); sampling fields one by one.
  return mergePatches(
    fieldsUnder('model.sampling', sampling),
    scenarioPatch({ 'model.sampling.temperature': temperature, 'model.sampling.top_p': topP }),
    scenarioPatch({ 'model.extraBody': extra ? { ...loaded.scenario.model.extraBody, ...extra } : undefined }),
  );
}
