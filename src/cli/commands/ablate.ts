import path from 'node:path';
import { OTEL_FLAG_HELP, OTEL_FLAG_OPTIONS, otelFlags } from '../otel-flag';
import { parseArgs } from 'node:util';
import { systemClock } from '../../core/clock';
import { DEFAULT_ABLATION_VARIANTS, formatAblationTable, planAblation, runAblationResumable, type AblationResult } from '../../engine/sweep/ablate';
import { createSweepProgress } from '../sweep-progress';
import { estimateSweep, SweepEta } from '../sweep-estimate';
import { availableParallelism } from 'node:os';
import { startRunWatch, WATCH_FLAG_HELP, WATCH_FLAG_OPTIONS, watchArgv, watchPort } from '../watch-flag';
import { withRunSignals } from '../run-signals';
import { loadScenario } from '../../engine/scenario/scenario';
import type { RedisTarget } from '../../engine/sweep/redis-target';
import type { SweepWatch } from '../../engine/sweep/sweep-coordinator';
import { EXIT } from '../exit-codes';
import { UsageError, intFlag } from '../usage';
import { variantFlags } from '../variant-flags';
import { queueFlag } from '../queue-flag';
import { MODEL_FLAGS_HELP } from '../model-flags';
import { SAMPLING_FLAGS_HELP } from '../sampling-flags';
import { budgetFromFlags } from '../budget-flags';
import { RUN_SETTING_FLAGS_HELP, SCENARIO_FLAG_OPTIONS, scenarioFlagsPatch } from '../scenario-flags';
import { SWEEP_FLAG_OPTIONS, SWEEP_FLAGS_HELP, sweepFlagsPatch } from '../sweep-flags';
import { applyScenarioPatch } from '../../engine/scenario/apply-patch';
import { mergePatches, scenarioPatch } from '../../core/scenario-patch';
import { WORLD_FLAG_HELP } from '../world-flag';
import { SCORE_FLAG_HELP, SCORE_FLAG_OPTIONS, scoreFlag } from '../score-flag';
import { withSweepDefaults } from '../composition';

/** Help text of `evochamber ablate`. */
export const ABLATE_HELP = `Usage: evochamber ablate <scenario.json> [options]
       evochamber ablate <scenario.json> --queue redis://host:port [options]
       evochamber ablate --queue redis://host:port --attach <sweep-id> [--out DIR] [--json]

Run several variants of a scenario over the same seeds and print mean ± sd accuracy,
overall and per niche, and stable specialists. Writes ablation.json with the runs, then
the ablation report (variants compared: accuracy, the stream, CoDream and lifecycle, cost).

With --queue the runs go to a Redis queue, one job per (variant, seed), and any number of
"evochamber worker --queue …" processes, on any machines, run them; this command waits,
shows progress, then prints the same table and writes the same ablation.json. A job that
still fails after its attempts is a failed row (exit 3). Ctrl-C stops waiting, not the sweep.

Where the runs go: the simulated model's runs spread over worker processes (--jobs, every
core by default), each as deterministic as alone; with --latency (virtual time) or an HTTP
backend they run in this process, --parallel at once, over ONE server: one virtual server and
clock, or one endpoint pool with one cap per endpoint across every run. Runs that share a server
run with speculative completion off (its cancellations would depend on the others' timing).

Options:
  --variants a,b,…  variants to run (default: ${DEFAULT_ABLATION_VARIANTS.join(',')})
  --seeds N         seeds, counted up from the scenario's seed (default 3)

Each run's settings (as in "evochamber run"; --set also takes the sweep's, sweep.* and sweepBudget):
${RUN_SETTING_FLAGS_HELP}

How the sweep runs (the scenario's "sweep" settings, recorded in its patch):
${SWEEP_FLAGS_HELP}
  --budget-tokens N, --budget-completion-tokens N, --budget-usd X
                    the sweep's budget (replaces the scenario's "sweepBudget"): runs not started
                    when it would be passed are marked in the table and ablation.json (each run's
                    own budget is the scenario's "budget")

Prices, output, the queue:
  --price MODEL=IN/OUT  US dollars per million input / output tokens (tokens and cost per variant)
  --reference NAME  the variant every other is compared with task by task (paired per-task reward
                    difference, 95 % bootstrap interval, sign-flip p, Holm-corrected; default
                    evochamber when it runs, else the first variant)
  --out DIR         output directory (default runs/ablate-<scenario>-<id>); a directory of
                    files evochamber did not write is refused, and so is one holding an ablation
  --force           replace the ablation in --out (only the files evochamber wrote there)
  --queue URL       queue the runs on Redis (redis://[:password@]host:port; a password is never printed)
  --attempts N      with --queue: attempts per run before it counts as failed (default 3)
  --attach ID       with --queue: wait for a sweep already under way and write its output
  --grace-ms N      after Ctrl-C, how long tasks in flight may take to finish (default 60000);
                    "evochamber resume <out dir>" continues an interrupted ablation
${WORLD_FLAG_HELP}
${SCORE_FLAG_HELP}
${OTEL_FLAG_HELP}
${WATCH_FLAG_HELP.replace('the run live', 'the ablation live')}
  --no-report       do not write the ablation report (written by default, into
                    <out dir>/report/: index.html, summary.md, data.json)
  --json            print the result as one JSON line last
  --quiet           no per-run progress (a bar per run on a terminal, a line per quarter otherwise)

${MODEL_FLAGS_HELP}
${SAMPLING_FLAGS_HELP}`;

/** `evochamber ablate`: exit 0; 3 when a run failed or any task of any run failed for infrastructure reasons; 4 when interrupted. */
export async function ablateCommand(argv: string[]): Promise<number | void> {
  const { values, positionals } = parseArgs({
    args: watchArgv(argv),
    allowPositionals: true,
    options: {
      ...WATCH_FLAG_OPTIONS,
      ...SCENARIO_FLAG_OPTIONS, ...SWEEP_FLAG_OPTIONS, variants: { type: 'string' }, seeds: { type: 'string' },
      out: { type: 'string' }, 'grace-ms': { type: 'string' }, json: { type: 'boolean' }, quiet: { type: 'boolean' }, 'no-report': { type: 'boolean' }, force: { type: 'boolean' },
      queue: { type: 'string' }, attempts: { type: 'string' }, attach: { type: 'string' }, help: { type: 'boolean', short: 'h' },
      reference: { type: 'string' }, ...SCORE_FLAG_OPTIONS, ...OTEL_FLAG_OPTIONS,
    },
  });
  if (values.help) { process.stdout.write(ABLATE_HELP); return; }
  if (values.score !== undefined && (values.queue !== undefined || values.attach !== undefined)) throw new UsageError('--score scores a local ablation (not with --queue)', ABLATE_HELP);
  await otelFlags(values);
  if (values.queue === undefined) {
    for (const f of ['attach', 'attempts'] as const) if (values[f] !== undefined) throw new UsageError(`--${f} needs --queue`, ABLATE_HELP);
  }
  if (values.attach !== undefined) {
    if (positionals.length) throw new UsageError('--attach takes no scenario file (the sweep carries its own)', ABLATE_HELP);
    return attach(values);
  }
  if (positionals.length !== 1) throw new UsageError('ablate takes exactly one scenario file', ABLATE_HELP);
  const loaded = loadScenario(positionals[0]!);
  // The sweep's budget replaces the scenario's sweepBudget whole (each run's own budget is the scenario's);
  // the sweep flags are its `sweep.*` settings, so the plan file records them as any other.
  const patch = await scenarioFlagsPatch(loaded, values, mergePatches(scenarioPatch({ sweepBudget: budgetFromFlags(values) }), sweepFlagsPatch(values)));
  const variants = values.variants?.split(',').map((v) => v.trim()).filter(Boolean);
  if (values.variants !== undefined && !variants?.length) throw new UsageError('--variants needs at least one name', ABLATE_HELP);
  variantFlags(variants, '--variants');
  const reference = values.reference;
  const planned: readonly string[] = variants ?? DEFAULT_ABLATION_VARIANTS;
  if (reference !== undefined && !planned.includes(reference)) {
    throw new UsageError(`--reference ${reference} is not one of the variants (${planned.join(', ')})`, ABLATE_HELP);
  }
  const seeds = intFlag(values.seeds, '--seeds', 1) ?? 3;
  const score = scoreFlag(values.score, applyScenarioPatch(loaded, patch), intFlag(values.tasks, '--tasks', 1));
  const total = (variants?.length ?? DEFAULT_ABLATION_VARIANTS.length) * seeds;
  let done = 0;
  let failedTasks = 0;
  const common = { variants, seeds, patch, outDir: values.out };
  if (values.deadline !== undefined && values['in-flight'] !== undefined) throw new UsageError('--deadline chooses each run\'s in-flight window: leave out --in-flight', ABLATE_HELP);
  if (values.queue !== undefined) {
    for (const f of ['priorities', 'deadline'] as const) {
      if (values[f] !== undefined) throw new UsageError(`--${f} does not apply with --queue (the workers share no server this process schedules)`);
    }
    if (values.watch !== undefined) throw new UsageError('--watch does not apply with --queue (the runs live on the workers\' machines; run "evochamber watch" there)');
    for (const f of ['parallel', 'jobs', 'budget-tokens', 'budget-completion-tokens', 'budget-usd'] as const) {
      if (values[f] !== undefined) throw new UsageError(`--${f} does not apply with --queue (each worker has --concurrency)`);
    }
    const target = queueFlag(values.queue, ABLATE_HELP);
    const { runQueuedAblation } = await loadSweep();
    return waitAndPrint(values, (watch) => runQueuedAblation(loaded, {
      ...common, ...watch, attempts: intFlag(values.attempts, '--attempts', 1),
      onEnqueued: (id, jobs) => process.stderr.write(`ablate: sweep ${id}: ${jobs} runs queued on ${target.shown}; ` +
        `Ctrl-C stops waiting, not the sweep; re-attach with: evochamber ablate --queue ${target.shown} --attach ${id}\n`),
    }), target, total);
  }
  const graceMs = intFlag(values['grace-ms'], '--grace-ms', 0) ?? 60_000;
  const port = watchPort(values.watch);
  // The server needs the directory before the first run: fix it here (the default has a random suffix).
  const outDir = values.out ?? (port === undefined ? undefined : planAblation(loaded, { variants, seeds }).outDir);
  // The sweep's size and predicted cost, one line before the first run; then the ETA from measured rates.
  const ablated = variants ?? [...DEFAULT_ABLATION_VARIANTS];
  const sweep = applyScenarioPatch(loaded, patch).scenario.sweep;
  const processes = loaded.scenario.model.backend === 'sim' && !(loaded.scenario.model as { latency?: string }).latency
    ? sweep?.jobs ?? availableParallelism() : typeof sweep?.parallel === 'number' ? sweep.parallel : 1;
  const estimate = await estimateSweep(loaded, { variants: ablated, seeds, patch, processes });
  if (!values.quiet) process.stderr.write(`ablate: ${estimate.line}\n`);
  const tasksPerRun = estimate.tasks;
  const eta = new SweepEta(ablated.flatMap((v) => Array.from({ length: seeds }, () => ({ variant: v, tasks: tasksPerRun }))), estimate.perTask, systemClock);
  const runs = createSweepProgress(!values.quiet, eta);
  const watch = port === undefined ? null : startRunWatch(port, (l) => runs.log(l));
  const signals = withRunSignals(graceMs, (l) => process.stderr.write(`${l}\n`));
  const { result, outDir: ranIn } = await runAblationResumable(loaded, withSweepDefaults({
    ...common, outDir, force: values.force,
    stop: signals.stop, graceMs, onAbandonable: signals.onAbandonable,
    onNote: (line: string) => runs.log(`ablate: ${line}`),
    // The plan is on disk once the first run starts.
    onRunStart: () => watch?.attach(outDir!),
    onRunProgress: (v, s, p) => runs.update(v, s, p),
    onRunDone: (v, s, summary) => {
      done++;
      failedTasks += summary.failures + (summary.evolve?.failures ?? 0);
      eta.update(v, s, summary.tasks);
      runs.log(`ablate ${done}/${total}: ${v} seed ${s} accuracy ${summary.accuracy.toFixed(3)}${summary.virtualSeconds !== undefined ? ` · ${(summary.virtualSeconds / 3600).toFixed(2)} virtual h` : ''} · ${eta.describe()}`);
    },
  })).finally(async () => {
    runs.stop();
    signals.dispose();
    await watch?.close();
  });
  if (!result) {
    process.stdout.write(`ablation interrupted; continue with: evochamber resume ${ranIn}\n`);
    return EXIT.interrupted;
  }
  await printAblation(result, values.json, !values['no-report'], reference);
  score?.(result);
  return failedTasksExit(failedTasks);
}

/** Exit 3, said once on stderr, when tasks of finished runs failed for infrastructure reasons. */
export function failedTasksExit(failedTasks: number): number {
  if (failedTasks === 0) return EXIT.ok;
  process.stderr.write(`ablate: ${failedTasks} tasks failed for infrastructure reasons (see each run's failures)\n`);
  return EXIT.tasksFailed;
}

/** The queue code, loaded only with --queue: BullMQ and ioredis cost the local ablate start-up time. */
function loadSweep() {
  return import('../../engine/sweep/sweep-coordinator');
}

type Flags = { readonly reference?: string; readonly json?: boolean; readonly quiet?: boolean; readonly 'no-report'?: boolean; readonly out?: string; readonly attach?: string; readonly queue?: string };

async function attach(values: Flags & Record<string, unknown>): Promise<number> {
  for (const f of ['variants', 'seeds', 'tasks', 'in-flight', 'parallel', 'attempts'] as const) {
    if (values[f] !== undefined) throw new UsageError(`--${f} does not apply with --attach (the sweep has its own)`, ABLATE_HELP);
  }
  const target = queueFlag(values.queue, ABLATE_HELP);
  const { attachSweep } = await loadSweep();
  return waitAndPrint(values, (watch) => attachSweep(values.attach!, { ...watch, outDir: values.out }), target, undefined);
}

/** Wait on a queued sweep with progress lines; Ctrl-C detaches. Exit 3 when a run failed or lost tasks. */
async function waitAndPrint(values: Flags, wait: (w: SweepWatch) => Promise<AblationResult>, target: RedisTarget, total: number | undefined): Promise<number> {
  const stop = new AbortController();
  const onSignal = () => stop.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  let seen = 0;
  let running = -1;
  let failedTasks = 0;
  const of = total === undefined ? '' : `/${total}`;
  try {
    const result = await wait({
      target, signal: stop.signal,
      onRunDone: (v, s, summary, place) => {
        seen++;
        failedTasks += (summary.failures ?? 0) + (summary.evolve?.failures ?? 0);
        if (!values.quiet) process.stderr.write(`ablate ${seen}${of}: ${v} seed ${s} accuracy ${summary.accuracy.toFixed(3)} (${place.worker}${place.resumed ? ', resumed' : ''})\n`);
      },
      // Said when the number of busy workers changes: at the start (none yet?), and as workers come and go.
      onStatus: (st) => {
        if (values.quiet || st.running === running) return;
        running = st.running;
        process.stderr.write(`ablate: ${st.running} run${st.running === 1 ? '' : 's'} under way, ${st.waiting} waiting for a worker, ${st.finished + st.failed} done\n`);
      },
      onRunFailed: (f) => {
        seen++;
        process.stderr.write(`ablate ${seen}${of}: ${f.variant} seed ${f.seed} FAILED after ${f.attempts} attempts: ${f.error}\n`);
      },
    });
    await printAblation(result, values.json, !values['no-report'], values.reference);
    const tasksExit = failedTasksExit(failedTasks);
    return result.failed?.length ? EXIT.tasksFailed : tasksExit;
  } catch (err) {
    if (err instanceof (await loadSweep()).SweepDetached) {
      process.stderr.write(`ablate: ${err.message}; re-attach with: evochamber ablate --queue ${target.shown} --attach ${err.sweepId}\n`);
      return EXIT.interrupted;
    }
    throw err;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

/**
 * The ablation table, then its report (HTML, Markdown and JSON, into <ablate-dir>/report/ unless
 * `report` is false) and its path, and with `json` the documented JSON line last. A report that
 * fails never fails the ablation (ablation.json is written): one warning names the command that retries it.
 */
export async function printAblation(result: AblationResult, json: boolean | undefined, report = true, reference?: string): Promise<void> {
  // The paired comparison reads each run's log: a queued sweep's runs on the workers' disks leave it out.
  let paired: AblationResult['paired'] | null = null;
  try {
    const { addPairedStats } = await import('../../report/paired-stats');
    paired = await addPairedStats(result.outDir, reference);
  } catch (err) {
    process.stderr.write(`ablate: no paired comparison: ${(err as Error).message}\n`);
  }
  if (paired) result = { ...result, paired };
  process.stdout.write(`${formatAblationTable(result)}\n`);
  let reportPath: string | undefined;
  if (report) {
    try {
      const { writeReport } = await import('../../report/write-report');
      reportPath = (await writeReport(result.outDir, { clock: systemClock, outDir: path.join(result.outDir, 'report') })).indexPath;
      process.stdout.write(`report: ${reportPath}\n`);
    } catch (err) {
      process.stderr.write(`ablate: the report failed: ${(err as Error).message}; retry with "evochamber report ${result.outDir}"\n`);
    }
  }
  if (json) {
    const { variants: vs, seeds: n } = result;
    process.stdout.write(`${JSON.stringify({ variants: vs, seeds: n, ...(result.paired ? { paired: result.paired } : {}), ...(reportPath ? { reportPath } : {}) })}\n`);
  }
}
