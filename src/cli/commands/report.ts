import { parseArgs } from 'node:util';
import { systemClock } from '../../core/clock';
import { UsageError } from '../usage';
import { reportProgress } from '../report-progress';

/** Help text of `evochamber report`. */
export const REPORT_HELP = `Usage: evochamber report <run-dir | ablate-dir> [--out DIR]

Write the specialization report of a run (or of an ablate output, recognised by its
ablation.json) from its event log: index.html (self-contained, opens from disk), summary.md
and data.json. On a long log (4 MB or more) it says on stderr how much it has read.

Options:
  --out DIR   where to write the report (default <run-dir>/report/); a directory of files
              evochamber did not write is refused, and only its own files are replaced
`;

/** `evochamber report`. */
export async function reportCommand(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { out: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
  });
  if (values.help) { process.stdout.write(REPORT_HELP); return; }
  if (positionals.length !== 1) throw new UsageError('report takes exactly one run directory', REPORT_HELP);
  const { writeReport } = await import('../../report/write-report');
  const progress = reportProgress((s) => process.stderr.write(s), process.stderr.isTTY === true);
  const r = await writeReport(positionals[0]!, { outDir: values.out, clock: systemClock, onProgress: progress.onProgress }).finally(() => progress.stop());
  process.stdout.write(`${r.kind === 'ablation' ? 'ablation ' : ''}report: ${r.indexPath}\n`);
  process.stdout.write(`  summary: ${r.summaryPath}\n  data:    ${r.dataPath}\n`);
  if (r.tasks && !r.tasks.finished) process.stdout.write(`${await unfinishedLine(positionals[0]!, r.tasks)}\n`);
}

/** A report of a run that did not finish says so, with what the log holds: `crashed: 407 of 1000 tasks committed; …`. */
async function unfinishedLine(dir: string, tasks: { readonly done: number; readonly planned: number }): Promise<string> {
  const { RunStore, runState } = await import('../../store/run-store');
  const { state } = runState(dir, (await RunStore.open(dir)).data.status);
  const next = state === 'running' ? 'the run is still going; report it again when it ends' : `continue it with: evochamber resume ${dir}`;
  return `the run did not finish (${state}): the report covers the ${tasks.done} of ${tasks.planned} tasks committed; ${next}`;
}
