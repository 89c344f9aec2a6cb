import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import type { Clock } from '../../core/clock';
import { ABLATION_FILE, ablationFileSchema, ablationReportDataSchema, type AblationReportData } from '../ablation-report';
import { readRunTrace } from '../ablation-runs';
import type { RunTrace } from '../collect/run-trace-collector';
import { pairedFromTraces } from '../paired-stats';
import { REPORT_DATA_SCHEMA_VERSION } from '../report-data';
import { compareVariants } from '../variant-comparison';
import { stat } from '../../core/stats/mean-sd';
import { RunStore } from '../../store/run-store';

/** One input of `compare`: a run directory, or an ablation's. */
const inputSchema = z.object({ path: z.string(), kind: z.enum(['run', 'ablation']), scenario: z.string().nullable(), seeds: z.array(z.number()), entries: z.array(z.string()) });

/** `data.json` of a comparison: the ablation report's data over the inputs' runs, plus where each came from and what differs. */
export const compareDataSchema = ablationReportDataSchema.omit({ kind: true }).extend({
  kind: z.literal('compare'),
  inputs: z.array(inputSchema),
  /** What differs between the inputs that a reader must know: scenarios, streams, seeds. */
  differences: z.array(z.string()),
  /** Per entry: team structure → times chosen, mean per run. */
  structures: z.array(z.object({ entry: z.string(), counts: z.record(z.string(), z.number()) })),
});

/** A comparison's data. */
export type CompareData = z.infer<typeof compareDataSchema>;

interface SummaryLike {
  accuracy?: number; perNiche?: Record<string, number>; stableSpecialists?: number; virtualSeconds?: number;
  tokens?: { total?: { promptTokens: number; completionTokens: number } };
  structures?: Record<string, Record<string, number>>;
}

interface OneRun { readonly dir: string; readonly seed: number; readonly scenario: string; readonly stream: string; readonly summary: SummaryLike | null; readonly trace: RunTrace | null }
interface Entry { readonly name: string; readonly runs: OneRun[] }

/** Open one run directory for the comparison (its run.json, and its log's fold). */
async function openRun(dir: string): Promise<OneRun> {
  const run = (await RunStore.open(dir)).data;
  const cfg = run.config as { name?: string; seed?: number; stream?: unknown };
  return { dir: path.resolve(dir), seed: cfg.seed ?? 0, scenario: cfg.name ?? 'unknown', stream: JSON.stringify(cfg.stream ?? null), summary: run.summary as SummaryLike | null, trace: (await readRunTrace(dir)).trace };
}

/** Read one input: a run is one entry, an ablation one entry per variant. Refuses anything else in one line. */
async function readInput(p: string): Promise<{ input: z.infer<typeof inputSchema>; entries: Entry[] }> {
  const label = path.basename(path.resolve(p));
  if (existsSync(path.join(p, ABLATION_FILE))) {
    const file = path.join(p, ABLATION_FILE);
    const parsed = ablationFileSchema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
    if (!parsed.success) throw new Error(`${file}: ${parsed.error.issues[0]!.path.join('.') || '(root)'}: ${parsed.error.issues[0]!.message}`);
    const entries: Entry[] = [];
    for (const [variant, v] of Object.entries(parsed.data.variants)) {
      for (const dir of v.runs) if (!existsSync(path.join(dir, 'run.json'))) throw new Error(`${dir}: not on this machine (a queued sweep's runs stay on the workers' disks); compare where it is`);
      entries.push({ name: `${label}/${variant}`, runs: await Promise.all(v.runs.map(openRun)) });
    }
    const seeds = [...new Set(entries.flatMap((e) => e.runs.map((r) => r.seed)))].sort((a, b) => a - b);
    return { input: { path: path.resolve(p), kind: 'ablation', scenario: parsed.data.scenario ?? null, seeds, entries: entries.map((e) => e.name) }, entries };
  }
  if (!existsSync(path.join(p, 'run.json'))) throw new Error(`${p}: neither a run (no run.json) nor an ablation (no ${ABLATION_FILE})`);
  if (!existsSync(path.join(p, 'events.jsonl'))) throw new Error(`${p}: a run without its events.jsonl (the comparison reads each task's reward from it)`);
  const run = await openRun(p);
  return { input: { path: run.dir, kind: 'run', scenario: run.scenario, seeds: [run.seed], entries: [label] }, entries: [{ name: label, runs: [run] }] };
}

/** What differs between the inputs that changes how to read them: the scenario, its stream, the seeds. */
function differences(entries: readonly Entry[]): string[] {
  const out: string[] = [];
  const runs = entries.flatMap((e) => e.runs.map((r) => ({ entry: e.name, ...r })));
  const scenarios = [...new Set(runs.map((r) => r.scenario))];
  if (scenarios.length > 1) out.push(`The scenarios differ (${entries.map((e) => `${e.name}: ${[...new Set(e.runs.map((r) => r.scenario))].join(', ')}`).join('; ')}): the tasks are not the same, so the figures compare different streams.`);
  else if (new Set(runs.map((r) => r.stream)).size > 1) out.push(`The scenario's stream settings differ between the inputs (${scenarios[0]}): their tasks may not be the same.`);
  const seedsOf = (e: Entry) => e.runs.map((r) => r.seed).sort((a, b) => a - b).join(',');
  if (new Set(entries.map(seedsOf)).size > 1) out.push(`The seeds differ (${entries.map((e) => `${e.name}: ${seedsOf(e)}`).join('; ')}): only tasks of a seed both ran pair; a comparison without one is unpaired, and says so.`);
  return out;
}

/** Entry names made unique (two inputs of the same basename get their position). */
function uniqueNames(entries: Entry[]): Entry[] {
  const seen = new Map<string, number>();
  return entries.map((e) => { const n = (seen.get(e.name) ?? 0) + 1; seen.set(e.name, n); return n === 1 ? e : { ...e, name: `${e.name} (${n})` }; });
}

/**
 * Read runs and ablations made separately and put them side by side: each run is one entry, each
 * variant of an ablation one; the first input's (first) entry is the reference of the paired
 * statistics unless `reference` names another. Throws, in one line, for an input that is neither.
 */
export async function buildCompareData(paths: readonly string[], clock: Clock, reference?: string): Promise<CompareData> {
  if (paths.length < 2) throw new Error('compare needs at least two runs or ablations');
  const read = await Promise.all(paths.map(readInput));
  const entries = uniqueNames(read.flatMap((r) => r.entries));
  if (reference !== undefined && !entries.some((e) => e.name === reference)) throw new Error(`--reference ${reference} is not one of the entries (${entries.map((e) => e.name).join(', ')})`);
  const acc = (r: OneRun) => r.summary?.accuracy ?? r.trace?.accuracy ?? 0;
  const tokens = (r: OneRun) => (r.summary?.tokens?.total ? r.summary.tokens.total.promptTokens + r.summary.tokens.total.completionTokens : r.trace?.tokens ?? 0);
  const niches = [...new Set(entries.flatMap((e) => e.runs.flatMap((r) => Object.keys(r.summary?.perNiche ?? r.trace?.perNiche ?? {}))))];
  const variants: AblationReportData['variants'] = entries.map((e) => ({
    name: e.name, accuracy: stat(e.runs.map(acc)),
    perNiche: niches.map((niche) => ({ niche, ...stat(e.runs.map((r) => (r.summary?.perNiche ?? r.trace?.perNiche ?? {})[niche]).filter((x): x is number => x !== undefined)) })),
    stableSpecialists: stat(e.runs.map((r) => r.summary?.stableSpecialists ?? 0)), runs: e.runs.map((r) => r.dir),
    tokens: stat(e.runs.map(tokens)), completionTokens: stat(e.runs.map((r) => r.summary?.tokens?.total?.completionTokens ?? 0)), usd: null,
    perSeed: e.runs.map((r) => ({ seed: r.seed, accuracy: acc(r), perNiche: r.summary?.perNiche ?? {}, stableSpecialists: r.summary?.stableSpecialists ?? 0, tokens: tokens(r), completionTokens: r.summary?.tokens?.total?.completionTokens ?? 0 })),
    notRun: [], failed: [],
  }));
  const compared = entries.map((e) => ({ name: e.name, runs: e.runs.map((r) => ({
    seed: r.seed, dir: r.dir, trace: r.trace, ...(r.summary ? { accuracy: acc(r), tokens: tokens(r) } : {}),
    gpuHours: r.summary?.virtualSeconds === undefined ? undefined : r.summary.virtualSeconds / 3600,
  })) }));
  const seeds = [...new Set(entries.flatMap((e) => e.runs.map((r) => r.seed)))].sort((a, b) => a - b);
  const scenarios = [...new Set(entries.flatMap((e) => e.runs.map((r) => r.scenario)))];
  return compareDataSchema.parse({
    schemaVersion: REPORT_DATA_SCHEMA_VERSION, kind: 'compare', generatedAt: clock.isoNow(), dir: read[0]!.input.path,
    scenario: scenarios.join(' vs '), seeds: Math.max(...entries.map((e) => e.runs.length)), seedList: seeds, niches, variants,
    reproduce: null, scenarioConfig: null, comparison: compareVariants(compared),
    paired: pairedFromTraces(compared, reference ?? entries[0]!.name, seeds[0] ?? 0),
    inputs: read.map((r) => r.input), differences: differences(entries),
    structures: entries.map((e) => ({ entry: e.name, counts: structureCounts(e.runs) })),
  });
}

/** Times each structure was chosen, summed over niches, mean per run. */
function structureCounts(runs: readonly OneRun[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of runs) for (const byStructure of Object.values(r.summary?.structures ?? {})) for (const [s, n] of Object.entries(byStructure)) out[s] = (out[s] ?? 0) + n / runs.length;
  return Object.fromEntries(Object.entries(out).map(([s, n]) => [s, Math.round(n * 10) / 10]));
}
