import { parseArgs } from 'node:util';
import { DEFAULT_ABLATION_VARIANTS, formatAblationTable, runAblation } from '../../engine/ablate';
import { loadScenario } from '../../engine/scenario';
import { UsageError, intFlag } from '../usage';
import { EXIT } from '../exit-codes';

/** Help text of `evochamber ablate`. */
export const ABLATE_HELP = `Usage: evochamber ablate <scenario.json> [options]

Run several variants of a scenario over the same seeds and print mean ± sd accuracy,
overall and per niche, and stable specialists. Writes ablation.json with the runs.

Options:
  --variants a,b,…  variants to run (default: ${DEFAULT_ABLATION_VARIANTS.join(',')})
  --seeds N         seeds, counted up from the scenario's seed (default 3)
  --tasks N         tasks per run (default: the scenario's)
  --in-flight N     tasks in flight per run
  --parallel N      runs at once (default 1; helps most with HTTP backends)
  --out DIR         output directory (default runs/ablate-<scenario>-<id>)
  --json            print the result as one JSON line last
  --quiet           no per-run progress lines
`;

/** `evochamber ablate`: exit 0, or 3 when any task of any run failed for infrastructure reasons. */
export async function ablateCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      variants: { type: 'string' }, seeds: { type: 'string' }, tasks: { type: 'string' }, 'in-flight': { type: 'string' },
      parallel: { type: 'string' }, out: { type: 'string' }, json: { type: 'boolean' }, quiet: { type: 'boolean' }, help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) { process.stdout.write(ABLATE_HELP); return EXIT.ok; }
  if (positionals.length !== 1) throw new UsageError('ablate takes exactly one scenario file', ABLATE_HELP);
  const loaded = loadScenario(positionals[0]!);
  const variants = values.variants?.split(',').map((v) => v.trim()).filter(Boolean);
  if (values.variants !== undefined && !variants?.length) throw new UsageError('--variants needs at least one name', ABLATE_HELP);
  const seeds = intFlag(values.seeds, '--seeds', 1) ?? 3;
  const total = (variants?.length ?? DEFAULT_ABLATION_VARIANTS.length) * seeds;
  let done = 0;
  let failedTasks = 0;
  const result = await runAblation(loaded, {
    variants, seeds, tasks: intFlag(values.tasks, '--tasks', 1), inFlight: intFlag(values['in-flight'], '--in-flight', 1),
    parallel: intFlag(values.parallel, '--parallel', 1), outDir: values.out,
    onRunDone: (v, s, summary) => {
      done++;
      failedTasks += summary.failures;
      if (!values.quiet) process.stderr.write(`ablate ${done}/${total}: ${v} seed ${s} accuracy ${summary.accuracy.toFixed(3)}\n`);
    },
  });
  process.stdout.write(`${formatAblationTable(result)}\n`);
  if (values.json) {
    const { variants: vs, seeds: n } = result;
    process.stdout.write(`${JSON.stringify({ variants: vs, seeds: n })}\n`);
  }
  if (failedTasks > 0) process.stderr.write(`ablate: ${failedTasks} tasks failed for infrastructure reasons (see each run's failures)\n`);
  return failedTasks > 0 ? EXIT.tasksFailed : EXIT.ok;
}
