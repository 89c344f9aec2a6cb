import { existsSync } from 'node:fs';
import { OTEL_FLAG_HELP, OTEL_FLAG_OPTIONS, otelFlags } from '../otel-flag';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { systemClock } from '../../core/clock';
import { resumeAblation, ABLATION_PLAN_FILE } from '../../engine/sweep/ablate';
import { resumeRun } from '../../engine/run/run-scenario';
import { reportAfterRun } from '../../report/report-after-run';
import { RunStore } from '../../store/run-store';
import { createProgress } from '../progress';
import { EXIT } from '../exit-codes';
import { withRunSignals } from '../run-signals';
import { UsageError, intFlag } from '../usage';
import { failedTasksExit, printAblation } from './ablate';
import { reportResult } from './run';
import { BUDGET_FLAG_OPTIONS, budgetFromFlags } from '../budget-flags';
import { fieldsUnder, mergePatches, scenarioPatch } from '../../core/scenario-patch';
import { createSweepProgress } from '../sweep-progress';
import { startRunWatch, WATCH_FLAG_HELP, WATCH_FLAG_OPTIONS, watchArgv, watchPort } from '../watch-flag';
import { WORLD_FLAG_OPTIONS, worldPatch } from '../world-flag';
import { RUN_CHILD_ENTRY } from '../composition';

/** Help text of `evochamber resume`. */
export const RESUME_HELP = `Usage: evochamber resume <run-dir | ablate-dir> [options]

Continue an interrupted or crashed run where it stopped. The stream is re-executed from the
start with every model call already answered served from the run's request journal (no finished
call is paid twice), checked against the event log, and then continued. Given an ablation's
directory, finishes its runs that did not finish and writes ablation.json.

Options:
  --grace-ms N   after Ctrl-C, how long tasks in flight may take to finish (default 60000)
  --jobs N       given an ablation's directory: worker processes for the simulated model's runs
                 (default: what the ablation was started with; each run resumed where it stopped)
  --json         print the summary as one JSON line last
  --quiet        no progress output
  --no-report    do not write the HTML report
${WATCH_FLAG_HELP.replace(/^ {2}--watch\[=PORT\] {4}/, '  --watch[=PORT] ').replace(/\n {20}/g, '\n                 ')}
  --budget-tokens N, --budget-completion-tokens N, --budget-usd X
                 a new budget for the rest of the run (a run stopped by its budget goes on with
                 a larger one); it replaces the old one in run.json. Given an ablation's
                 directory, the sweep's new budget (as on ablate): the runs it left unstarted
                 start if they fit; it replaces the old one in ablation-plan.json
  --world FILE   the simulator's world for the rest of the run (or the ablation's runs not yet
                 finished), recorded in run.json (ablation-plan.json); the events already
                 written are re-checked, so a world that changes them is refused at the first
                 task it changes (docs/calibration.md)
${OTEL_FLAG_HELP.replace(/\n {20}/g, '\n                 ').replace(/^ {2}--otel URL {8}/, '  --otel URL     ').replace('\n  --otel-file PATH  ', '\n  --otel-file PATH\n                 ')}
`;

/** `evochamber resume`. */
export async function resumeCommand(argv: string[]): Promise<number | void> {
  const { values, positionals } = parseArgs({
    args: watchArgv(argv),
    allowPositionals: true,
    options: {
      ...WATCH_FLAG_OPTIONS,
      'grace-ms': { type: 'string' }, jobs: { type: 'string' }, json: { type: 'boolean' }, quiet: { type: 'boolean' }, 'no-report': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' }, ...BUDGET_FLAG_OPTIONS, ...WORLD_FLAG_OPTIONS, ...OTEL_FLAG_OPTIONS,
    },
  });
  if (values.help) { process.stdout.write(RESUME_HELP); return; }
  await otelFlags(values);
  if (positionals.length !== 1) throw new UsageError('resume takes exactly one run directory', RESUME_HELP);
  const dir = positionals[0]!;
  if (values.price?.length) throw new UsageError('--price does not apply to resume (the run keeps the prices it started with)');
  const budget = budgetFromFlags(values);
  const graceMs = intFlag(values['grace-ms'], '--grace-ms', 0) ?? 60_000;
  const jobs = intFlag(values.jobs, '--jobs', 1);
  const port = watchPort(values.watch);
  // The watch server's lines go apart from the progress bar once there is one (a run's resume).
  let logLine = (l: string) => { process.stderr.write(`${l}\n`); };
  const watch = port === undefined ? null : startRunWatch(port, (l) => logLine(l));
  watch?.attach(dir);
  const signals = withRunSignals(graceMs, (l) => process.stderr.write(`${l}\n`));
  try {
    if (existsSync(path.join(dir, ABLATION_PLAN_FILE))) {
      let failedTasks = 0;
      const runs = createSweepProgress(!values.quiet);
      // The sweep's worker processes run each unfinished run's resume (the plan keeps the ablation's own
      // sweep.jobs; --jobs replaces it, as a new budget replaces the sweep's, for later resumes too).
      const r = await resumeAblation(dir, {
        childEntry: RUN_CHILD_ENTRY,
        patch: mergePatches(scenarioPatch({ sweepBudget: budget, 'sweep.jobs': jobs }), worldPatch(values.world)),
        onNote: (line: string) => { if (!values.quiet) process.stderr.write(`ablate: ${line}\n`); },
        stop: signals.stop, graceMs, onAbandonable: signals.onAbandonable,
        onRunProgress: (v, s, p) => runs.update(v, s, p),
        onRunDone: (v, s, summary) => {
          failedTasks += summary.failures + (summary.evolve?.failures ?? 0);
          runs.log(`ablate: ${v} seed ${s} accuracy ${summary.accuracy.toFixed(3)}`);
        },
      }).finally(() => runs.stop());
      if (!r) {
        process.stdout.write(`ablation interrupted; continue with: evochamber resume ${dir}\n`);
        return EXIT.interrupted;
      }
      await printAblation(r, values.json, !values['no-report']);
      return failedTasksExit(failedTasks);
    }
    if (jobs !== undefined) throw new UsageError('--jobs applies to an ablation\'s directory (a run resumes in one process)', RESUME_HELP);
    const store = await RunStore.open(dir);
    const total = (store.data.config as { stream?: { tasks?: number } }).stream?.tasks ?? 0;
    const progress = createProgress('resume', total, systemClock, !values.quiet);
    logLine = (l) => progress.log(l);
    try {
      const result = await resumeRun(dir, {
        onProgress: (p) => progress.update(p),
        onNotice: (line) => process.stderr.write(`${line}\n`),
        ...(values['no-report'] ? {} : { afterRun: reportAfterRun() }),
        patch: mergePatches(fieldsUnder('budget', budget), worldPatch(values.world)),
        stop: signals.stop, graceMs, onAbandonable: signals.onAbandonable,
      });
      progress.stop();
      return reportResult(result, values.json ?? false);
    } finally {
      progress.stop();
    }
  } finally {
    signals.dispose();
    await watch?.close();
  }
}
