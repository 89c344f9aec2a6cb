import { parseArgs } from 'node:util';
import { OTEL_FLAG_HELP, OTEL_FLAG_OPTIONS, otelFlags } from '../otel-flag';
import { systemClock } from '../../core/clock';
import { PRESETS } from '../../engine/scenario/presets';
import { runScenario, type RunResult } from '../../engine/run/run-scenario';
import { REPORT_FLAG_HELP, REPORT_FLAG_OPTIONS, reportHookFromFlags } from '../report-flag';
import { loadScenario, parseScenario } from '../../engine/scenario/scenario';
import { RunStore } from '../../store/run-store';
import { EXIT } from '../exit-codes';
import { withRunSignals } from '../run-signals';
import { formatSummary } from '../format-summary';
import { createProgress } from '../progress';
import { MODEL_FLAGS_HELP } from '../model-flags';
import { SAMPLING_FLAGS_HELP } from '../sampling-flags';
import { UsageError, intFlag } from '../usage';
import { variantFlags } from '../variant-flags';
import { BUDGET_FLAGS_HELP, budgetFromFlags } from '../budget-flags';
import { fieldsUnder } from '../../core/scenario-patch';
import { RUN_SETTING_FLAGS_HELP, SCENARIO_FLAG_OPTIONS, scenarioFlagsPatch } from '../scenario-flags';
import { startRunWatch, WATCH_FLAG_HELP, WATCH_FLAG_OPTIONS, watchArgv, watchPort } from '../watch-flag';
import { WORLD_FLAG_HELP } from '../world-flag';

/** Help text of `evochamber run`. */
export const RUN_HELP = `Usage: evochamber run <scenario.json> [options]
       evochamber run --replay <run-dir> [<scenario.json>] [options]

Run a scenario's task stream and print the summary. Ctrl-C (or SIGTERM) stops it cleanly:
no new tasks, those in flight finish, and "evochamber resume <run-dir>" continues it later.
Exit code 0 when every task was graded, 3 when some failed, 4 when interrupted (or stopped by
its budget), 1 on error.

Options:
  --variant NAME    preset to run (${Object.keys(PRESETS).join(', ')})
  --seed N          seed (default: the scenario's)
${RUN_SETTING_FLAGS_HELP}
  --out DIR         run directory (default runs/<scenario>-<variant>-s<seed>-<id>); one that
                    holds a run already is refused (resume it, or pick a new one), and so is
                    a file or a directory holding other files
  --force           replace the run in --out
  --replay DIR      answer every model call from DIR's request journal (offline re-analysis;
                    a call it lacks is an error naming it); the scenario defaults to DIR's
  --grace-ms N      after Ctrl-C, how long tasks in flight may take to finish (default 60000)
${REPORT_FLAG_HELP}
${WORLD_FLAG_HELP}
${OTEL_FLAG_HELP}
${WATCH_FLAG_HELP}
  --journal         keep the request journal under the in-process simulator too (it is
                    always kept for HTTP backends), so the run can be replayed
  --json            print the summary as one JSON line last
  --quiet           no progress output

${BUDGET_FLAGS_HELP}

${MODEL_FLAGS_HELP}
${SAMPLING_FLAGS_HELP}`;

/** `evochamber run`: exit 0, 3 when any task failed for infrastructure reasons, 4 when interrupted (see exit-codes.ts). */
export async function runCommand(argv: string[]): Promise<number | void> {
  const { values, positionals } = parseArgs({
    args: watchArgv(argv),
    allowPositionals: true,
    options: {
      ...WATCH_FLAG_OPTIONS,
      ...SCENARIO_FLAG_OPTIONS, variant: { type: 'string' }, seed: { type: 'string' },
      out: { type: 'string' }, json: { type: 'boolean' }, quiet: { type: 'boolean' }, help: { type: 'boolean', short: 'h' },
      force: { type: 'boolean' }, replay: { type: 'string' }, 'grace-ms': { type: 'string' }, ...REPORT_FLAG_OPTIONS, journal: { type: 'boolean' },
      ...OTEL_FLAG_OPTIONS,
    },
  });
  if (values.help) { process.stdout.write(RUN_HELP); return; }
  await otelFlags(values);
  variantFlags(values.variant === undefined ? undefined : [values.variant], '--variant');
  const replay = values.replay;
  if (positionals.length > 1 || (positionals.length === 0 && !replay)) throw new UsageError('run takes exactly one scenario file', RUN_HELP);
  const base = positionals[0] !== undefined ? loadScenario(positionals[0]) : await replayedScenario(replay!);
  const patch = await scenarioFlagsPatch(base, values, fieldsUnder('budget', budgetFromFlags(values)));
  const graceMs = intFlag(values['grace-ms'], '--grace-ms', 0) ?? 60_000;
  const total = Number(patch['stream.tasks'] ?? base.scenario.stream.tasks);
  const port = watchPort(values.watch);
  const progress = createProgress('run', total, systemClock, !values.quiet);
  const watch = port === undefined ? null : startRunWatch(port, (l) => progress.log(l));
  const signals = withRunSignals(graceMs, (l) => process.stderr.write(`${l}\n`));
  try {
    const result = await runScenario(base, {
      patch,
      outDir: values.out,
      force: values.force,
      ...(replay ? { replayFrom: replay } : {}),
      ...reportHookFromFlags(values),
      ...(values.journal ? { journal: true } : {}),
      onProgress: (p) => progress.update(p),
      onNotice: (line) => process.stderr.write(`${line}\n`),
      ...(watch ? { onRunDir: (dir: string) => watch.attach(dir) } : {}),
      stop: signals.stop, graceMs, onAbandonable: signals.onAbandonable,
    });
    progress.stop();
    return reportResult(result, values.json ?? false);
  } finally {
    signals.dispose();
    progress.stop();
    await watch?.close();
  }
}

/** Print a run's summary (or where an interrupted run stopped) and return its exit code. */
export function reportResult(result: RunResult, json: boolean): number {
  const { summary } = result;
  if (result.interrupted) {
    process.stdout.write(`${formatSummary(summary)}\n`);
    const b = result.budget;
    process.stdout.write(b
      ? `budget spent after ${summary.tasks} committed tasks (${b.limit}: ${fmt(b.spent)} spent, ${fmt(b.projected)} with the work in flight, of ${fmt(b.budget)}); continue with a larger one: evochamber resume ${result.runDir} --budget-${b.limit === 'usd' ? 'usd' : b.limit === 'tokens' ? 'tokens' : 'completion-tokens'} N\n`
      : `${interruptedAt(result)}; continue with: evochamber resume ${result.runDir}\n`);
    if (json) process.stdout.write(`${JSON.stringify({ ...summary, interrupted: true })}\n`);
    return EXIT.interrupted;
  }
  process.stdout.write(`${formatSummary(summary)}\n`);
  if (json) process.stdout.write(`${JSON.stringify(summary)}\n`);
  return summary.failures > 0 || (summary.evolve?.failures ?? 0) > 0 ? EXIT.tasksFailed : EXIT.ok;
}

/** Where an interrupted run stopped: the tasks its log holds (more than the summary's when a resume was stopped in its replay). */
function interruptedAt(result: RunResult): string {
  const held = result.committed ?? result.summary.tasks;
  return held > result.summary.tasks
    ? `interrupted while replaying (${result.summary.tasks} of the ${held} logged tasks re-checked); the log holds ${held} committed tasks`
    : `interrupted after ${held} committed tasks`;
}

const fmt = (x: number) => (Number.isInteger(x) ? String(x) : x.toFixed(4));

/** The scenario a replayed run ran (from its run.json), when no scenario file is given. */
async function replayedScenario(dir: string) {
  const store = await RunStore.open(dir);
  return parseScenario(store.data.config, `${dir}/run.json`, store.data.scenarioDir ?? process.cwd());
}
