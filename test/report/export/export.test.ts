// `evochamber export`: a real ablation's tables, written as Parquet and as CSV, read back by an
// independent reader (DuckDB) and checked against the runs' own summaries.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadScenario, runAblation, type AblationResult } from '../../../src/index';
import { EXPORT_TABLES } from '../../../src/report/export/export-tables';
import { exportTables } from '../../../src/report/export/export-run';

const VARIANTS = ['evochamber', 'single-agent'];
let root: string;
let ablation: AblationResult;
let db: DuckDBConnection;
let close: () => void;

/** Rows of a query as plain objects (numbers, not BigInts). */
async function q(sql: string): Promise<Record<string, unknown>[]> {
  const rows = (await db.runAndReadAll(sql)).getRowObjectsJS();
  return rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, typeof v === 'bigint' ? Number(v) : v])));
}

interface Summary {
  tasks: number; graded: number; failures: number; accuracy: number; perNiche: Record<string, number>;
  codream: { routed: number }; lineage: Record<string, number>; agents: { count: number };
}
const summaryOf = (runDir: string) => JSON.parse(readFileSync(path.join(runDir, 'run.json'), 'utf8')).summary as Summary;

beforeAll(async () => {
  root = mkdtempSync(path.join(tmpdir(), 'evo-export-'));
  ablation = await runAblation(loadScenario(path.resolve('scenarios/quickstart.json')), { variants: VARIANTS, seeds: 2, patch: { 'stream.tasks': 60 }, outDir: path.join(root, 'ablate') });
  const instance = await DuckDBInstance.create(':memory:');
  db = await instance.connect();
  close = () => { db.closeSync(); instance.closeSync(); };
}, 60_000);

afterAll(() => close?.());

describe('export', () => {
  it.each(['parquet', 'csv'] as const)('writes every table as %s, read back by DuckDB with the summaries\' counts', async (format) => {
    const out = path.join(root, `export-${format}`);
    const r = await exportTables(ablation.outDir, { format, outDir: out });
    expect(r.files.map((f) => f.table)).toEqual(EXPORT_TABLES.map((t) => t.name));
    const read = (table: string) => (format === 'parquet' ? `read_parquet('${path.join(out, `${table}.parquet`)}')` : `read_csv('${path.join(out, `${table}.csv`)}', header = true, all_varchar = false)`);
    // Every file has the documented columns, in order, and as many rows as the writer said.
    for (const spec of EXPORT_TABLES) {
      const cols = (await q(`DESCRIBE SELECT * FROM ${read(spec.name)}`)).map((c) => c.column_name);
      if (format === 'parquet' || r.files.find((f) => f.table === spec.name)!.rows > 0) expect(cols).toEqual(spec.columns.map((c) => c.name));
      expect((await q(`SELECT count(*) AS n FROM ${read(spec.name)}`))[0]!.n).toBe(r.files.find((f) => f.table === spec.name)!.rows);
    }
    const runs = Object.entries(ablation.variants).flatMap(([variant, v]) => v.runs.map((dir, i) => ({ variant, seed: v.perSeed[i]!.seed, dir, s: summaryOf(dir) })));
    expect((await q(`SELECT count(*) AS n FROM ${read('runs')}`))[0]!.n).toBe(runs.length);
    for (const { variant, seed, s } of runs) {
      const where = `variant = '${variant}' AND seed = ${seed}`;
      const t = (await q(`SELECT count(*) AS n, count(*) FILTER (status = 'graded') AS graded, count(*) FILTER (status = 'failed') AS failed,
        avg(reward) FILTER (status = 'graded') AS acc FROM ${read('tasks')} WHERE ${where}`))[0]!;
      expect(t).toMatchObject({ n: s.tasks, graded: s.graded, failed: s.failures });
      expect(t.acc as number).toBeCloseTo(s.accuracy, 4);
      for (const row of await q(`SELECT niche, avg(reward) AS m FROM ${read('tasks')} WHERE ${where} AND status = 'graded' GROUP BY niche`)) {
        expect(row.m as number).toBeCloseTo(s.perNiche[row.niche as string]!, 4);
      }
      expect((await q(`SELECT count(*) AS n FROM ${read('codream_routes')} WHERE ${where}`))[0]!.n).toBe(s.codream.routed);
      const ops = Object.fromEntries((await q(`SELECT operator, count(*) AS n FROM ${read('lineage')} WHERE ${where} GROUP BY operator`)).map((o) => [o.operator, o.n]));
      for (const [op, n] of Object.entries(s.lineage)) expect(ops[op] ?? 0, op).toBe(n);
      expect((await q(`SELECT count(*) AS n FROM ${read('agents')} WHERE ${where}`))[0]!.n).toBe(s.agents.count);
      const run = (await q(`SELECT accuracy, tasks FROM ${read('runs')} WHERE ${where}`))[0]!;
      expect(run).toEqual({ accuracy: s.accuracy, tasks: s.tasks });
    }
    // Attempts: one row per `attempt` event of each log.
    const attempts = runs.reduce((a, x) => a + readFileSync(path.join(x.dir, 'events.jsonl'), 'utf8').split('\n').filter((l) => l.includes('"type":"attempt"')).length, 0);
    expect((await q(`SELECT count(*) AS n FROM ${read('attempts')}`))[0]!.n).toBe(attempts);
    // The notebook recipe of docs/runs-on-disk.md (per seed, then mean ± sd over seeds) is the report's per-niche table.
    const perNiche = await q(`WITH s AS (SELECT variant, seed, niche, avg(reward) AS r FROM ${read('tasks')} WHERE status = 'graded' GROUP BY ALL)
      SELECT variant, niche, avg(r) AS mean, stddev_samp(r) AS sd FROM s GROUP BY ALL`);
    expect(perNiche.length).toBeGreaterThan(0);
    for (const row of perNiche) {
      const want = ablation.variants[row.variant as string]!.perNiche[row.niche as string]!;
      expect(row.mean as number).toBeCloseTo(want.mean, 3);
      expect(row.sd as number).toBeCloseTo(want.sd, 3);
    }
  }, 60_000);

  it('documents every table and column in docs/runs-on-disk.md', () => {
    const page = readFileSync('docs/runs-on-disk.md', 'utf8');
    const section = page.slice(page.indexOf('## Exporting'));
    for (const t of EXPORT_TABLES) {
      const table = section.slice(section.indexOf(`**\`${t.name}\`**`));
      expect(table.length, t.name).toBeLessThan(section.length);
      const rows = table.slice(0, table.indexOf('\n\n', table.indexOf('| ---')));
      expect(t.columns.filter((c) => !rows.includes(`| \`${c.name}\` | ${c.type} |`)), t.name).toEqual([]);
    }
  });

  it('says which directory is neither a run nor an ablation, and rejects an unknown format', () => {
    const cli = (...a: string[]) => spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'export', ...a], { encoding: 'utf8', timeout: 60_000 });
    const bad = cli(root);
    expect(bad.status).toBe(1);
    expect(bad.stderr).toContain(`${root}: neither a run (no run.json) nor an ablation (no ablation.json)`);
    const fmt = cli(ablation.outDir, '--format', 'xlsx');
    expect(fmt.status).toBe(2);
    expect(fmt.stderr).toContain('--format: "xlsx" is not one of parquet, csv');
  });
});
