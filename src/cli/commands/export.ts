import { parseArgs } from 'node:util';
import { EXPORT_FORMATS, type ExportFormat } from '../../report/export/write-table';
import { UsageError } from '../usage';

/** Help text of `evochamber export`. */
export const EXPORT_HELP = `Usage: evochamber export <run-dir | ablate-dir> [--format parquet|csv] [--out DIR]

Write a run's event log (or every run of an ablation) as tables a notebook reads directly
(pandas, polars, DuckDB): tasks, attempts, competence, codream_routes, lineage, agents, and for
an ablation runs (one row per run). Columns: docs/runs-on-disk.md, "Exporting: a run as tables".

Options:
  --format F   parquet (default) or csv
  --out DIR    where the files go (default <dir>/export/); a directory of files evochamber
               did not write is refused, and only its own files are replaced
`;

/** `evochamber export`. */
export async function exportCommand(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv, allowPositionals: true,
    options: { format: { type: 'string' }, out: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
  });
  if (values.help) { process.stdout.write(EXPORT_HELP); return; }
  if (positionals.length !== 1) throw new UsageError('export takes exactly one run or ablation directory', EXPORT_HELP);
  const format = (values.format ?? 'parquet') as ExportFormat;
  if (!EXPORT_FORMATS.includes(format)) throw new UsageError(`--format: "${values.format}" is not one of ${EXPORT_FORMATS.join(', ')}`, EXPORT_HELP);
  const { exportTables } = await import('../../report/export/export-run');
  const r = await exportTables(positionals[0]!, { format, ...(values.out ? { outDir: values.out } : {}) });
  const w = Math.max(...r.files.map((f) => f.table.length));
  process.stdout.write(`${r.kind} exported as ${format} to ${r.outDir}:\n`);
  for (const f of r.files) process.stdout.write(`  ${f.table.padEnd(w)}  ${String(f.rows).padStart(7)} rows  ${f.file}\n`);
}
