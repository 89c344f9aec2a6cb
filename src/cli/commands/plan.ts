import { parseArgs } from 'node:util';
import { DEFAULT_ABLATION_VARIANTS } from '../../engine/sweep/ablate';
import { planSweep, type SweepPlan } from '../../engine/sweep/plan';
import { loadScenario } from '../../engine/scenario/scenario';
import { predictAccuracy, type PredictedAccuracy } from '../../engine/sweep/calibrate/predict';
import { worldUncertainty } from '../world-uncertainty';
import { streamGroups } from '../world-groups';
import { scenarioWorld } from '../../sim/sim-plugin';
import { PROFILES } from '../../llm/latency-profiles';
import { deadlineSchedule, describeDeadline, sharedHours } from '../../engine/sweep/sweep-schedule';
import { applyScenarioPatch } from '../../engine/scenario/apply-patch';
import { SWEEP_FLAG_OPTIONS, sweepFlagsPatch } from '../sweep-flags';
import { priceFlagsPatch } from '../budget-flags';
import { mergePatches, scenarioPatch } from '../../core/scenario-patch';
import { UsageError, intFlag } from '../usage';
import { variantFlags } from '../variant-flags';
import { applyWorldFlag, WORLD_FLAG_HELP, WORLD_FLAG_OPTIONS } from '../world-flag';

/** Help text of `evochamber plan`. */
export const PLAN_HELP = `Usage: evochamber plan <scenario.json> [options]

Predict what a run, or a sweep of variants × seeds, will cost before starting it: calls, prompt
and completion tokens, the hours it takes on one server of a latency profile, and with --price
the dollars. Each variant runs a short pilot on the simulated model in virtual time (it costs
nothing); its cost per task, niche by niche, is extrapolated by each run's own stream.

Options:
  --variants a,b,…  variants (default: the scenario's own; "all": ${DEFAULT_ABLATION_VARIANTS.length} variants, as ablate runs)
  --seeds N         seeds, counted up from the scenario's seed (default 1)
  --tasks N         tasks per run (default: the scenario's)
  --latency NAME    the server profile (${Object.keys(PROFILES).join(', ')}; default qwen3-8b-h100-vllm)
  --price MODEL=IN/OUT  US dollars per million input / output tokens of the scenario's model
  --pilot-tasks N   tasks of each pilot (default: 10 % of the stream, 24 to 120)
  --deadline HOURS  choose each run's in-flight window for a sweep that must end in HOURS on one
                    server (as ablate --deadline does, by the same model) and print the choice; a
                    deadline no window meets is said in one line with the shortest time (exit 1)
  --priorities P    critical-path or off (default off): as ablate --priorities, for that model
${WORLD_FLAG_HELP}
                    With a world (--world, or the scenario's sim.world) plan also predicts each
                    variant's accuracy: its full stream on the simulator under that world, per seed
  --json            print the plan as one JSON line last
`;

/** `evochamber plan`. */
export async function planCommand(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      variants: { type: 'string' }, seeds: { type: 'string' }, tasks: { type: 'string' }, latency: { type: 'string' },
      price: { type: 'string', multiple: true }, 'pilot-tasks': { type: 'string' }, json: { type: 'boolean' },
      deadline: SWEEP_FLAG_OPTIONS.deadline, priorities: SWEEP_FLAG_OPTIONS.priorities, help: { type: 'boolean', short: 'h' }, ...WORLD_FLAG_OPTIONS,
    },
  });
  if (values.help) { process.stdout.write(PLAN_HELP); return; }
  if (positionals.length !== 1) throw new UsageError('plan takes exactly one scenario file', PLAN_HELP);
  if (values.latency !== undefined && !Object.hasOwn(PROFILES, values.latency)) {
    throw new UsageError(`--latency: unknown profile "${values.latency}" (profiles: ${Object.keys(PROFILES).join(', ')})`);
  }
  // --deadline and --priorities are ablate's sweep settings (sweep-flags.ts), read as ablate reads
  // them: from the scenario's `sweep` section with the flags' patch applied.
  const sweepPatch = sweepFlagsPatch({ deadline: values.deadline, priorities: values.priorities });
  const loaded = applyWorldFlag(loadScenario(positionals[0]!), values.world);
  const sweep = applyScenarioPatch(loaded, sweepPatch).scenario.sweep ?? {};
  const deadline = sweep.deadlineHours;
  const critical = sweep.priorities === 'critical-path';
  const variants = values.variants === 'all' ? [...DEFAULT_ABLATION_VARIANTS] : values.variants?.split(',').map((v) => v.trim()).filter(Boolean);
  if (values.variants !== undefined && !variants?.length) throw new UsageError('--variants needs at least one name');
  variantFlags(variants, '--variants');
  const plan = await planSweep(loaded, {
    ...(variants ? { variants } : {}), seeds: intFlag(values.seeds, '--seeds', 1) ?? 1,
    patch: mergePatches(scenarioPatch({ 'stream.tasks': intFlag(values.tasks, '--tasks', 1) }), priceFlagsPatch(loaded, values)),
    ...(values.latency ? { latency: values.latency } : {}),
    pilotTasks: intFlag(values['pilot-tasks'], '--pilot-tasks', 4),
    onPilot: (v, n) => process.stderr.write(`plan: pilot of ${v} (${n} tasks) done\n`),
  });
  const world = worldName(loaded.scenario.sim.world);
  const inlined = scenarioWorld(loaded.scenario.sim).world;
  const uncertainty = inlined ? worldUncertainty(inlined, world ?? 'world', streamGroups([loaded])) : undefined;
  const accuracy = world === undefined ? undefined : await predictAccuracy(loaded, {
    variants: variants ?? [loaded.scenario.variant], seeds: intFlag(values.seeds, '--seeds', 1) ?? 1, tasks: intFlag(values.tasks, '--tasks', 1),
    ...(uncertainty ? { uncertainty } : {}),
  });
  process.stdout.write(`${formatPlan(plan)}\n`);
  process.stdout.write(`every run at once on one server at in-flight 1: ${sharedHours(plan, critical).toFixed(2)} h (the deadline model, priorities ${critical ? 'critical-path' : 'off'})\n`);
  // Refused in one line (exit 1) when no window meets it, as ablate --deadline refuses it.
  const chosen = deadline === undefined ? undefined : deadlineSchedule(plan, deadline, critical).report;
  if (chosen) process.stdout.write(`${describeDeadline(chosen)}\n`);
  if (accuracy) process.stdout.write(`${formatAccuracy(accuracy, world!)}\n`);
  if (values.json) process.stdout.write(`${JSON.stringify({ ...plan, ...(chosen ? { deadline: chosen } : {}), ...(accuracy ? { world, accuracy } : {}) })}\n`);
}

/** The name of the world a scenario names (inlined when loaded), if any. */
function worldName(world: unknown): string | undefined {
  if (world === undefined) return undefined;
  return typeof world === 'string' ? world : String((world as { name?: unknown }).name ?? 'world');
}

/** Predicted accuracy per variant, beside the plan's cost. */
export function formatAccuracy(rows: readonly PredictedAccuracy[], world: string): string {
  const w = Math.max(8, ...rows.map((r) => r.variant.length));
  const f3 = (x: number) => x.toFixed(3);
  const withParams = rows.some((r) => r.sdParameters > 0);
  return [
    `predicted accuracy under world ${world} (full stream on the simulator; 95% interval of one run${withParams ? ', with the fit\'s parameter uncertainty' : ''}):`,
    ...rows.flatMap((r) => [
      `${r.variant.padEnd(w)} ${f3(r.mean)}  [${f3(r.lo)}, ${f3(r.hi)}]  runs ${r.runs.map(f3).join(', ')}`,
      `${''.padEnd(w)} ${Object.entries(r.perNiche).map(([n, x]) => `${n} ${f3(x.mean)} [${f3(x.lo)}, ${f3(x.hi)}]`).join('; ')}`,
    ]),
  ].join('\n');
}

const k = (x: number) => (x >= 1e6 ? `${(x / 1e6).toFixed(2)}M` : `${(x / 1e3).toFixed(1)}k`);

/** The plan as a table: one row per run, then the total. */
export function formatPlan(p: SweepPlan): string {
  const priced = p.total.usd !== undefined;
  const w = Math.max(8, ...p.runs.map((r) => r.variant.length));
  const row = (name: string, seed: string, c: { calls: number; promptTokens: number; completionTokens: number; virtualHours: number; usd?: number }) =>
    [name.padEnd(w), seed.padStart(5), String(c.calls).padStart(8), k(c.promptTokens).padStart(9), k(c.completionTokens).padStart(9),
      c.virtualHours.toFixed(2).padStart(8), ...(priced ? [(c.usd ?? 0).toFixed(2).padStart(9)] : [])].join(' ');
  return [
    `predicted from a ${p.pilotTasks}-task pilot per variant in virtual time on ${p.profile}:`,
    [`${'variant'.padEnd(w)}`, ' seed', '   calls', '   prompt', 'complet.', 'GPU-h', ...(priced ? ['      USD'] : [])].join(' '),
    ...p.runs.map((r) => row(r.variant, String(r.seed), r)),
    row('total', '', p.total),
    `run after run: ${p.total.virtualHours.toFixed(2)} GPU-hours; at the server's maximum output rate for this request shape: ${p.total.hoursAtMaxRate === null ? '–' : p.total.hoursAtMaxRate.toFixed(2)} h (runs sharing one server at once approach it: ablate --latency ${p.profile} --parallel auto)`,
  ].join('\n');
}
