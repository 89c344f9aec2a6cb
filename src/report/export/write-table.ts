import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import type { Row, TableSpec } from './export-tables';

/** The file formats `evochamber export` writes. */
export const EXPORT_FORMATS = ['parquet', 'csv'] as const;
/** An export format. */
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** A CSV field: RFC 4180 quoting (a field with a comma, quote or line break is quoted, quotes doubled); null is empty. */
function csvField(v: Row[string]): string {
  if (v === null || v === undefined) return '';
  const s = String(v);
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** Write one table as CSV (a header line, then one line per row, LF-terminated), streamed. */
async function writeCsv(file: string, spec: TableSpec, rows: readonly Row[]): Promise<void> {
  const out = createWriteStream(file);
  const write = async (line: string) => { if (!out.write(line)) await once(out, 'drain'); };
  await write(`${spec.columns.map((c) => csvField(c.name)).join(',')}\n`);
  for (const r of rows) await write(`${spec.columns.map((c) => csvField(r[c.name])).join(',')}\n`);
  out.end();
  await once(out, 'finish');
}

/** Write one table as Parquet with hyparquet-writer: every column typed from the spec and nullable, snappy-compressed. */
async function writeParquet(file: string, spec: TableSpec, rows: readonly Row[]): Promise<void> {
  const { parquetWriteFile } = await import('hyparquet-writer');
  parquetWriteFile({
    filename: file,
    columnData: spec.columns.map((c) => ({
      name: c.name, type: c.type,
      data: rows.map((r) => {
        const v = r[c.name];
        if (v === undefined || v === null) return null;
        if (c.type === 'STRING') return String(v);
        if (c.type === 'BOOLEAN') return Boolean(v);
        if (c.type === 'INT64') return BigInt(Math.round(Number(v)));
        return c.type === 'INT32' ? Math.round(Number(v)) : Number(v);
      }),
    })),
    createdBy: 'evochamber export',
  });
}

/** Write one table in a format into `file`. */
export function writeTable(format: ExportFormat, file: string, spec: TableSpec, rows: readonly Row[]): Promise<void> {
  return format === 'csv' ? writeCsv(file, spec, rows) : writeParquet(file, spec, rows);
}
