import { parseArgs } from 'node:util';
import { systemClock } from '../../engine/clock';
import { PRESETS } from '../../engine/presets';
import { runScenario } from '../../engine/run-scenario';
import { loadScenario } from '../../engine/scenario';
import { formatSummary } from '../format-summary';
import { createProgress } from '../progress';
import { applyModelFlags, MODEL_FLAGS_HELP, MODEL_FLAG_OPTIONS } from '../model-flags';
import { UsageError, intFlag } from '../usage';
import { EXIT } from '../exit-codes';

/** Help text of `evochamber run`. */
export const RUN_HELP = `Usage: evochamber run <scenario.json> [options]

Run a scenario's task stream and print the summary.

Options:
  --variant NAME    preset to run (${Object.keys(PRESETS).join(', ')})
  --seed N          seed (default: the scenario's)
  --tasks N         number of tasks in the stream
  --in-flight N     tasks in flight at once (default: the scenario's, 1)
  --out DIR         run directory (default runs/<scenario>-<variant>-s<seed>-<id>)
  --json            print the summary as one JSON line last
  --quiet           no progress output

${MODEL_FLAGS_HELP}`;

/** `evochamber run`: exit 0, or 3 when any task failed for infrastructure reasons (see exit-codes.ts). */
export async function runCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      variant: { type: 'string' }, seed: { type: 'string' }, tasks: { type: 'string' }, 'in-flight': { type: 'string' },
      out: { type: 'string' }, json: { type: 'boolean' }, quiet: { type: 'boolean' }, help: { type: 'boolean', short: 'h' },
      ...MODEL_FLAG_OPTIONS,
    },
  });
  if (values.help) { process.stdout.write(RUN_HELP); return EXIT.ok; }
  if (positionals.length !== 1) throw new UsageError('run takes exactly one scenario file', RUN_HELP);
  const loaded = await applyModelFlags(loadScenario(positionals[0]!), values);
  const tasks = intFlag(values.tasks, '--tasks', 1);
  const total = tasks ?? loaded.scenario.stream.tasks;
  const progress = createProgress('run', total, systemClock, !values.quiet);
  try {
    const { summary } = await runScenario(loaded, {
      variant: values.variant,
      seed: intFlag(values.seed, '--seed', 0),
      tasks,
      inFlight: intFlag(values['in-flight'], '--in-flight', 1),
      outDir: values.out,
      onProgress: (p) => progress.update(p),
    });
    progress.stop();
    process.stdout.write(`${formatSummary(summary)}\n`);
    if (values.json) process.stdout.write(`${JSON.stringify(summary)}\n`);
    return summary.failures > 0 ? EXIT.tasksFailed : EXIT.ok;
  } finally {
    progress.stop();
  }
}
