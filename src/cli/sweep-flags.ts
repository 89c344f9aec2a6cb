import { scenarioPatch, type ScenarioPatch } from '../core/scenario-patch';
import { PRIORITY_POLICIES, type PriorityPolicy } from '../engine/scenario/sweep-settings';
import { UsageError, intFlag } from './usage';

/** parseArgs option spec of `ablate`'s sweep flags: each is a `sweep.*` setting of the scenario (sweep-settings.ts). */
export const SWEEP_FLAG_OPTIONS = {
  jobs: { type: 'string' }, parallel: { type: 'string' }, priorities: { type: 'string' }, deadline: { type: 'string' },
} as const;

/** The values the sweep flags parse into. */
export interface SweepFlagValues {
  readonly jobs?: string;
  readonly parallel?: string;
  readonly priorities?: string;
  readonly deadline?: string;
}

/** Help lines of the sweep flags. */
export const SWEEP_FLAGS_HELP = `  --jobs N          worker processes for the simulated model's runs (default: the core count;
                    sweep.jobs)
  --parallel N      runs at once over one shared server (virtual time, HTTP); "auto": as many as
                    raise the server's measured output tokens/s (default 1; not with --queue;
                    sweep.parallel)
  --priorities P    critical-path or off (default off): over one shared server, start the runs
                    longest first and send each run's requests with a priority from its predicted
                    remaining time (plan's model, updated by its progress; the longest goes first).
                    Needs a server that honours vLLM's priority (vLLM and serve-sim with
                    --scheduling-policy priority; the virtual server of --latency always does)
                    (sweep.priorities)
  --deadline HOURS  virtual hours the sweep must end in (with --latency, or a real server by plan's
                    model of one qwen3-8b-h100-vllm): each run gets the smallest in-flight window that
                    fits (staleness guarded, evolve timing when-ready), printed before the sweep; runs
                    that need none stay at in-flight 1; every run starts at once (unless --parallel).
                    The table compares each variant with it alone at in-flight 1. A deadline no window
                    meets is refused in one line with the shortest time (exit 1) (sweep.deadlineHours)`;

/**
 * The sweep flags as the `sweep.*` entries of the ablation's patch (unset flags set nothing): the
 * plan file, the reproduce command and the report then read them as any setting, knowing no flag.
 * A malformed value is a UsageError naming the flag.
 */
export function sweepFlagsPatch(v: SweepFlagValues): ScenarioPatch {
  const deadlineHours = v.deadline === undefined ? undefined : Number(v.deadline);
  if (deadlineHours !== undefined && !(deadlineHours > 0)) throw new UsageError(`--deadline takes a positive number of hours, got "${v.deadline}"`);
  return scenarioPatch({
    'sweep.jobs': intFlag(v.jobs, '--jobs', 1),
    'sweep.parallel': v.parallel === 'auto' ? 'auto' : intFlag(v.parallel, '--parallel', 1),
    'sweep.priorities': priorityFlag(v.priorities),
    'sweep.deadlineHours': deadlineHours,
  });
}

/** `--priorities`: a policy name, else a UsageError naming the flag. */
function priorityFlag(v: string | undefined): PriorityPolicy | undefined {
  if (v === undefined) return undefined;
  if (!(PRIORITY_POLICIES as readonly string[]).includes(v)) throw new UsageError(`--priorities takes ${PRIORITY_POLICIES.join(' or ')}, got "${v}"`);
  return v as PriorityPolicy;
}
