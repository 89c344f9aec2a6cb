import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fieldsUnder, mergePatches, scenarioPatch, type ScenarioPatch } from '../core/scenario-patch';

/** The file in an ablation's directory that says what it runs, so an interrupted one can resume. */
export const ABLATION_PLAN_FILE = 'ablation-plan.json';

/** Version of `ablation-plan.json` (2: every override is one `patch`; 3: the sweep's own settings are in it too, as `sweep.*`). */
export const ABLATION_PLAN_SCHEMA_VERSION = 3;

/** What `ablation-plan.json` holds: enough to rebuild the plan and its run options on resume. */
export interface AblationPlanFile {
  readonly schemaVersion: typeof ABLATION_PLAN_SCHEMA_VERSION;
  /** The validated scenario ablate was given (before its patch). */
  readonly config: Record<string, unknown>;
  readonly scenarioDir: string;
  readonly variants: readonly string[];
  readonly seeds: number;
  /**
   * What every run changes in the scenario, keyed by path; the sweep's budget is `sweepBudget`, and
   * how the sweep runs (`--parallel`, `--jobs`, `--priorities`, `--deadline`) is `sweep.*`.
   */
  readonly patch: ScenarioPatch;
}

/** Version 2 kept the sweep's own settings in fields beside the patch. */
interface AblationPlanFileV2 extends Omit<AblationPlanFile, 'schemaVersion'> {
  readonly schemaVersion: 2;
  readonly parallel?: number | 'auto';
  readonly jobs?: number;
  readonly priorities?: 'critical-path' | 'off';
  readonly deadlineHours?: number;
}

/** Version 1 kept each override in a field of its own, and the backend flags applied in `config`. */
interface AblationPlanFileV1 extends Omit<AblationPlanFileV2, 'schemaVersion' | 'patch'> {
  readonly schemaVersion: 1;
  readonly tasks?: number;
  readonly inFlight?: number | 'auto';
  readonly staleness?: { readonly policy?: string; readonly tau?: number };
  readonly evolveTiming?: string;
  readonly budget?: Record<string, number>;
}

/**
 * A version-1 plan as version 2: its override fields become the patch they meant (the staleness
 * fields set one by one, as they were merged; the budget the sweep's, which it replaced), and the
 * model and prices, which version 1 applied into `config`, are named too (as its reproduce command did).
 */
export function migrateAblationPlanV1(v1: AblationPlanFileV1): AblationPlanFileV2 {
  const { tasks, inFlight, staleness, evolveTiming, budget, schemaVersion: _v, ...rest } = v1;
  const patch = mergePatches(
    scenarioPatch({ 'stream.tasks': tasks, 'engine.inFlight': inFlight }), fieldsUnder('engine.staleness', staleness),
    scenarioPatch({ 'engine.evolveTiming': evolveTiming, model: v1.config.model, prices: v1.config.prices, sweepBudget: budget }),
  );
  return { ...rest, schemaVersion: 2, patch };
}

/** A version-2 plan as version 3: its sweep fields become the `sweep.*` entries they mean, after its patch. */
export function migrateAblationPlanV2(v2: AblationPlanFileV2): AblationPlanFile {
  const { parallel, jobs, priorities, deadlineHours, schemaVersion: _v, patch, ...rest } = v2;
  const sweep = fieldsUnder('sweep', { parallel, jobs, priorities, deadlineHours });
  return { ...rest, schemaVersion: ABLATION_PLAN_SCHEMA_VERSION, patch: mergePatches(patch, sweep) };
}

/** Read an ablation's plan (a version-1 one migrated); fails naming the file for another version. */
export function readAblationPlan(dir: string): AblationPlanFile {
  const file = path.join(dir, ABLATION_PLAN_FILE);
  const read = JSON.parse(readFileSync(file, 'utf8')) as AblationPlanFile | AblationPlanFileV2 | AblationPlanFileV1;
  if (read.schemaVersion === 1) return migrateAblationPlanV2(migrateAblationPlanV1(read));
  if (read.schemaVersion === 2) return migrateAblationPlanV2(read);
  if (read.schemaVersion !== ABLATION_PLAN_SCHEMA_VERSION) {
    throw new Error(`${file}: schemaVersion ${String((read as { schemaVersion: unknown }).schemaVersion)} is not supported (this EvoChamber reads ${ABLATION_PLAN_SCHEMA_VERSION}, 2 and 1)`);
  }
  return read;
}

/** Write an ablation's plan. */
export function writeAblationPlan(dir: string, plan: AblationPlanFile): void {
  writeFileSync(path.join(dir, ABLATION_PLAN_FILE), `${JSON.stringify(plan, null, 2)}\n`);
}
