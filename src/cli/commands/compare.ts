import path from 'node:path';
import { parseArgs } from 'node:util';
import { systemClock } from '../../core/clock';
import { UsageError } from '../usage';

/** Help text of `evochamber compare`. */
export const COMPARE_HELP = `Usage: evochamber compare <A> <B> [C …] [--out DIR] [--reference NAME] [--json]

Put runs and ablations made separately side by side: accuracy over the stream, per niche, cost,
team structures, specialists, CoDream and lifecycle counts, and each entry against the first
task by task (paired per-task reward difference, 95 % bootstrap interval, sign-flip p, Holm-corrected;
unpaired, and labelled so, where no seed is shared). Each run directory is one entry; each variant
of an ablation directory is one, named <ablation>/<variant>. Says when the scenarios, their
streams or the seeds differ. Writes index.html, summary.md and data.json, like report.

Options:
  --out DIR         where to write it (default reports/compare-<A>-vs-<B>[-…])
  --reference NAME  the entry the others are compared with (default: the first)
  --json            print data.json's path and the paired rows as one JSON line last
`;

/** `evochamber compare`. */
export async function compareCommand(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv, allowPositionals: true,
    options: { out: { type: 'string' }, reference: { type: 'string' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
  });
  if (values.help) { process.stdout.write(COMPARE_HELP); return; }
  if (positionals.length < 2) throw new UsageError('compare takes at least two run or ablation directories', COMPARE_HELP);
  const { buildCompareData } = await import('../../report/compare/compare-data');
  const { checkCompareDir, writeCompare } = await import('../../report/compare/compare-report');
  const { formatPairedTable } = await import('../../core/stats/paired-comparison');
  const outDir = path.resolve(values.out ?? path.join('reports', `compare-${positionals.map((p) => path.basename(path.resolve(p))).join('-vs-')}`));
  checkCompareDir(outDir);
  const d = await buildCompareData(positionals, systemClock, values.reference);
  const w = await writeCompare(d, outDir);
  for (const x of d.differences) process.stderr.write(`compare: ${x}\n`);
  for (const v of d.variants) process.stdout.write(`${v.name.padEnd(Math.max(...d.variants.map((x) => x.name.length)))}  accuracy ${v.accuracy.mean.toFixed(3)}${v.runs.length > 1 ? ` ± ${v.accuracy.sd.toFixed(3)}` : ''} over ${v.runs.length} run${v.runs.length === 1 ? '' : 's'}\n`);
  if (d.paired) process.stdout.write(`${formatPairedTable(d.paired).join('\n')}\n`);
  process.stdout.write(`comparison: ${w.indexPath}\n  summary: ${w.summaryPath}\n  data:    ${w.dataPath}\n`);
  if (values.json) process.stdout.write(`${JSON.stringify({ dataPath: w.dataPath, paired: d.paired })}\n`);
}
