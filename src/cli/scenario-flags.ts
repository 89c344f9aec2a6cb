import type { LoadedScenario } from '../engine/scenario/scenario';
import { fieldsUnder, mergePatches, scenarioPatch, type ScenarioPatch } from '../core/scenario-patch';
import { parsePatchEntry } from '../core/scenario-patch';
import { STALENESS_POLICY_NAMES } from '../population/staleness';
import { BUDGET_FLAG_OPTIONS, priceFlagsPatch, type BudgetFlagValues } from './budget-flags';
import { embedderFlagPatch, MODEL_FLAG_OPTIONS, modelFlagsPatch, type ModelFlags } from './model-flags';
import { SAMPLING_FLAG_OPTIONS, samplingFlagsPatch, type SamplingFlags } from './sampling-flags';
import { WORLD_FLAG_OPTIONS, worldPatch } from './world-flag';
import { UsageError, inFlightFlag, intFlag } from './usage';

/** The flags of `run` and `ablate` that override the scenario, as parseArgs returns them. */
export interface ScenarioFlagValues extends ModelFlags, SamplingFlags, BudgetFlagValues {
  readonly variant?: string;
  readonly seed?: string;
  readonly tasks?: string;
  readonly 'in-flight'?: string;
  readonly staleness?: string;
  readonly tau?: string;
  readonly 'evolve-timing'?: string;
  readonly set?: string[];
  readonly world?: string;
}

/** parseArgs option spec of `--set`. */
export const SET_FLAG_OPTIONS = { set: { type: 'string', multiple: true } } as const;

/** Help line of `--set`. */
export const SET_FLAG_HELP = `  --set PATH=VALUE  set any scenario setting by its path, e.g. engine.inFlight=4 or
                    population.lifecycle.every=20 (VALUE as JSON, else as text); repeat it;
                    after the other flags, so it wins over them. Reports print a run's
                    overrides this way`;

/**
 * parseArgs option spec of every flag that overrides the scenario and that `run` and `ablate` share:
 * one spec (and one help text, RUN_SETTING_FLAGS_HELP), so the two commands cannot drift apart.
 */
export const SCENARIO_FLAG_OPTIONS = {
  tasks: { type: 'string' }, 'in-flight': { type: 'string' }, staleness: { type: 'string' }, tau: { type: 'string' }, 'evolve-timing': { type: 'string' },
  ...SET_FLAG_OPTIONS, ...MODEL_FLAG_OPTIONS, ...SAMPLING_FLAG_OPTIONS, ...BUDGET_FLAG_OPTIONS, ...WORLD_FLAG_OPTIONS,
} as const;

/** Help lines of a run's settings (`run`'s, and each of `ablate`'s runs'), `--set` last. */
export const RUN_SETTING_FLAGS_HELP = `  --tasks N         number of tasks in the stream (default: the scenario's)
  --in-flight N     tasks in flight at once (default: the scenario's, 1); "auto": sized as it
                    runs from measured rates and the version gap (scenario engine.auto)
  --staleness NAME  what becomes of lessons and insights applied after the pool moved on:
                    ${STALENESS_POLICY_NAMES.join(', ')} (default: the scenario's, full)
  --tau N           version gap the staleness policy tolerates unexamined (default: the scenario's, 8)
  --evolve-timing T when evolve outcomes are applied: lag (default: just before the task inFlight
                    places later commits; resumable on any backend) or when-ready (as soon as ready)
${SET_FLAG_HELP}`;

/** `--set` entries as a patch, in order; a UsageError naming the entry when it is not PATH=VALUE. */
export function setFlagsPatch(entries: readonly string[] | undefined): ScenarioPatch {
  const out: Record<string, unknown> = {};
  for (const e of entries ?? []) {
    let entry: [string, unknown];
    try {
      entry = parsePatchEntry(e);
    } catch (err) {
      throw new UsageError(`--set: ${(err as Error).message}`);
    }
    delete out[entry[0]];
    out[entry[0]] = entry[1];
  }
  return out;
}

/** `--staleness` and `--tau`; a UsageError naming the policies for an unknown one. */
export function stalenessFlags(policy: string | undefined, tau: string | undefined): { policy?: string; tau?: number } {
  if (policy !== undefined && !STALENESS_POLICY_NAMES.includes(policy)) {
    throw new UsageError(`--staleness: unknown policy "${policy}" (policies: ${STALENESS_POLICY_NAMES.join(', ')})`);
  }
  return { policy, tau: intFlag(tau, '--tau', 0) };
}

/** `--evolve-timing`; a UsageError for anything but lag or when-ready. */
export function evolveTimingFlag(value: string | undefined): 'lag' | 'when-ready' | undefined {
  if (value !== undefined && value !== 'lag' && value !== 'when-ready') throw new UsageError(`--evolve-timing: "${value}" is neither lag nor when-ready`);
  return value;
}

/**
 * Every flag that overrides the scenario, as one patch: the run's settings, the backend (which
 * replaces `model`), sampling, prices and the world (`sim.world`), then `extra` (the command's budget), then `--set` entries,
 * which win. Nothing is applied here: the run (or the sweep) applies the patch once, where it is made.
 */
export async function scenarioFlagsPatch(loaded: LoadedScenario, v: ScenarioFlagValues, extra?: ScenarioPatch): Promise<ScenarioPatch> {
  const model = await modelFlagsPatch(loaded, v);
  return mergePatches(
    scenarioPatch({
      variant: v.variant, seed: intFlag(v.seed, '--seed', 0), 'stream.tasks': intFlag(v.tasks, '--tasks', 1), 'engine.inFlight': inFlightFlag(v['in-flight']),
    }),
    fieldsUnder('engine.staleness', stalenessFlags(v.staleness, v.tau)),
    scenarioPatch({ 'engine.evolveTiming': evolveTimingFlag(v['evolve-timing']) }),
    model,
    embedderFlagPatch(v.embedder),
    samplingFlagsPatch(loaded, v),
    priceFlagsPatch(loaded, v, model.model),
    worldPatch(v.world),
    extra,
    setFlagsPatch(v.set),
  );
}
