import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { checkOutputDir, claimOutputDir } from '../../store/output-dir';
import { ABLATION_FILE, ablationFileSchema } from '../ablation-report';
import { openRunDirectory } from '../read-events';
import { EVENTS_FILE, readRunEvents } from '../../store/events';
import { EXPORT_TABLES, RunTables, type Row, type TableName } from './export-tables';
import { writeTable, type ExportFormat } from './write-table';
import { pairedOfAblation } from '../paired-stats';

/** What `exportTables` wrote: one file per table, with its rows. */
export interface ExportResult {
  readonly kind: 'run' | 'ablation';
  readonly outDir: string;
  readonly files: readonly { readonly table: TableName; readonly file: string; readonly rows: number }[];
}

interface SummaryLike {
  tasks?: number; graded?: number; failures?: number; accuracy?: number; exactRate?: number; stableSpecialists?: number;
  tokens?: { total?: { promptTokens: number; completionTokens: number; costNanoUsd?: number } };
  virtualSeconds?: number; codream?: { sessions: number; insights: number; routed: number }; lineage?: Record<string, number>;
}

/** Fold one run directory into the tables; its variant and seed name its rows. */
async function foldRun(dir: string, into: Record<TableName, Row[]>, fallback?: { variant: string; seed: number }): Promise<SummaryLike | null> {
  const { run, eventsFile } = await openRunDirectory(dir);
  const cfg = run.config as { variant?: string; seed?: number };
  const tables = new RunTables({ variant: cfg.variant ?? fallback?.variant ?? 'unknown', seed: cfg.seed ?? fallback?.seed ?? 0 });
  await readRunEvents(eventsFile).forEach((e) => tables.add(e));
  for (const [name, rows] of Object.entries(tables.finish())) for (const r of rows) into[name as TableName].push(r);
  return run.summary as SummaryLike | null;
}

/**
 * Export a run directory, or an ablation's (every run's rows in one table each, plus `runs`), as
 * Parquet or CSV tables into `outDir` (default `<dir>/export/`). The tables and their columns are
 * `EXPORT_TABLES` (docs/runs-on-disk.md, "Exporting: a run as tables"). Fails with the directory's name when it is
 * neither, or when an ablation's run directory is not on this machine.
 */
export async function exportTables(dir: string, opts: { readonly format: ExportFormat; readonly outDir?: string }): Promise<ExportResult> {
  if (!existsSync(dir)) throw new Error(`${dir}: no such directory; give a run's directory (runs/…) or an ablation's`);
  const outDir = path.resolve(opts.outDir ?? path.join(dir, 'export'));
  const names = EXPORT_TABLES.map((t) => `${t.name}.${opts.format}`);
  // Before the logs are read: a directory of someone else's files is refused at once, and never touched.
  checkOutputDir(outDir, { flag: '--out', names });
  const rows = Object.fromEntries(EXPORT_TABLES.map((t) => [t.name, [] as Row[]])) as Record<TableName, Row[]>;
  const ablation = existsSync(path.join(dir, ABLATION_FILE));
  if (ablation) {
    const file = path.join(dir, ABLATION_FILE);
    const parsed = ablationFileSchema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
    if (!parsed.success) throw new Error(`${file}: ${parsed.error.issues[0]!.path.join('.')}: ${parsed.error.issues[0]!.message}`);
    for (const [variant, v] of Object.entries(parsed.data.variants)) {
      for (const [i, runDir] of v.runs.entries()) {
        if (!existsSync(path.join(runDir, EVENTS_FILE))) throw new Error(`${runDir}: not on this machine (a queued sweep's runs stay on the workers' disks); export it where it is`);
        const seed = v.perSeed?.[i]?.seed ?? i;
        const s = await foldRun(runDir, rows, { variant, seed });
        rows.runs.push(runRow(variant, seed, runDir, s));
      }
    }
    const paired = parsed.data.paired ?? await pairedOfAblation(dir);
    for (const r of paired?.rows ?? []) {
      rows.paired.push({ variant: r.variant, reference: paired!.reference, test: r.test, tasks: r.tasks, reference_tasks: r.referenceTasks ?? null, seeds: r.seeds.join(','), difference: r.difference, lo: r.lo, hi: r.hi, p: r.p, p_holm: r.pHolm });
    }
  } else {
    if (!existsSync(path.join(dir, 'run.json'))) throw new Error(`${dir}: neither a run (no run.json) nor an ablation (no ${ABLATION_FILE})`);
    await foldRun(dir, rows);
  }
  claimOutputDir(outDir, { flag: '--out', names });
  const files: { table: TableName; file: string; rows: number }[] = [];
  for (const spec of EXPORT_TABLES) {
    if ((spec.name === 'runs' || spec.name === 'paired') && !ablation) continue;
    const file = path.join(outDir, `${spec.name}.${opts.format}`);
    await writeTable(opts.format, file, spec, rows[spec.name]);
    files.push({ table: spec.name, file, rows: rows[spec.name].length });
  }
  return { kind: ablation ? 'ablation' : 'run', outDir, files };
}

function runRow(variant: string, seed: number, runDir: string, s: SummaryLike | null): Row {
  const t = s?.tokens?.total;
  return {
    variant, seed, run_dir: runDir, tasks: s?.tasks ?? null, graded: s?.graded ?? null, failures: s?.failures ?? null, accuracy: s?.accuracy ?? null,
    exact_rate: s?.exactRate ?? null, stable_specialists: s?.stableSpecialists ?? null, prompt_tokens: t?.promptTokens ?? null, completion_tokens: t?.completionTokens ?? null,
    usd: t?.costNanoUsd !== undefined ? t.costNanoUsd / 1e9 : null, virtual_seconds: s?.virtualSeconds ?? null,
    codream_sessions: s?.codream?.sessions ?? null, codream_insights: s?.codream?.insights ?? null, codream_routed: s?.codream?.routed ?? null,
    genesis: s?.lineage?.genesis ?? null, fork: s?.lineage?.fork ?? null, merge: s?.lineage?.merge ?? null, prune: s?.lineage?.prune ?? null, specialize: s?.lineage?.specialize ?? null,
  };
}
