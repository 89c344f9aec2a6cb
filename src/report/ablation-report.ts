import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import type { Clock } from '../core/clock';
import type { Section } from './charts/section';
import { fmt3, vl } from './charts/section';
import { renderPage, type RenderedPage } from './html/page';
import { REPORT_DATA_SCHEMA_VERSION } from './report-data';
import { markdownTable } from './summary-md';
import { ablationReproduceCommands, patchLines, type AblationPlanView } from './reproduce';
import { readAblationPlan } from '../store/ablation-plan-file';
import { costAccuracyCharts, MAX_PLOT_WIDTH, populationSection, streamSection, variantColor } from './charts/variant-charts';
import { compareVariants, comparisonSchema, type ComparedRun } from './variant-comparison';
import { readRunTrace, type RunFigures } from './ablation-runs';
import { pairedFromTraces, pairedStatsSchema } from './paired-stats';
import { pairedSection } from './charts/paired-charts';

/** The file an `ablate` output directory is recognised by. */
export const ABLATION_FILE = 'ablation.json';

const stat = z.object({ mean: z.number(), sd: z.number() });

const seedRow = z.looseObject({
  seed: z.number(), accuracy: z.number(), perNiche: z.record(z.string(), z.number()), stableSpecialists: z.number(),
  tokens: z.number(), completionTokens: z.number(), usd: z.number().optional(), virtualSeconds: z.number().optional(),
});

/** `ablation.json` as `evochamber ablate` writes it (extra fields are allowed; an older file lacks tokens and per-seed rows). */
export const ablationFileSchema = z.looseObject({
  variants: z.record(z.string(), z.looseObject({
    accuracy: stat,
    perNiche: z.record(z.string(), stat),
    stableSpecialists: stat,
    runs: z.array(z.string()),
    tokens: stat.optional(),
    completionTokens: stat.optional(),
    usd: stat.optional(),
    perSeed: z.array(seedRow).optional(),
    failedSeeds: z.array(z.number()).optional(),
    notRunSeeds: z.array(z.number()).optional(),
  })),
  seeds: z.number().int().positive(),
  scenario: z.string().optional(),
  seedList: z.array(z.number()).optional(),
  deadline: z.looseObject({
    hours: z.number(), predictedHours: z.number(), profile: z.string(), windows: z.record(z.string(), z.array(z.number())),
    solo: z.record(z.string(), z.looseObject({ windows: z.array(z.number()), accuracy: stat, solo: stat, soloRan: z.boolean() })).optional(),
  }).optional(),
  paired: pairedStatsSchema.optional(),
});

/** `data.json` of an ablation report. */
export const ablationReportDataSchema = z.object({
  schemaVersion: z.literal(REPORT_DATA_SCHEMA_VERSION),
  kind: z.literal('ablation'),
  generatedAt: z.string(),
  dir: z.string(),
  scenario: z.string().nullable(),
  seeds: z.number(),
  seedList: z.array(z.number()).nullable(),
  niches: z.array(z.string()),
  variants: z.array(z.object({
    name: z.string(),
    accuracy: stat,
    perNiche: z.array(z.object({ niche: z.string(), mean: z.number(), sd: z.number() })),
    stableSpecialists: stat,
    runs: z.array(z.string()),
    tokens: stat.nullable(),
    completionTokens: stat.nullable(),
    usd: stat.nullable(),
    perSeed: z.array(seedRow),
    notRun: z.array(z.number()),
    failed: z.array(z.number()),
  })),
  /** How to run this ablation again; null when its ablation-plan.json is missing. */
  reproduce: z.object({ command: z.string(), scenarioFile: z.string(), fromOriginal: z.string(), patch: z.record(z.string(), z.unknown()) }).nullable(),
  /** The scenario as run (from ablation-plan.json), saved beside the report for `reproduce.command`. */
  scenarioConfig: z.unknown(),
  /** Rolling accuracy over the stream, CoDream and lifecycle counts, cost against accuracy: from the runs' own directories. */
  comparison: comparisonSchema,
  /** `ablate --deadline`: the deadline, the model's hours, and each variant's window per seed and accuracy alone at in-flight 1. */
  deadline: z.object({
    hours: z.number(), predictedHours: z.number(), profile: z.string(),
    variants: z.array(z.object({ name: z.string(), windows: z.array(z.number()), solo: stat.nullable(), soloRan: z.boolean() })),
  }).nullable().optional(),
  /** Each variant against the reference, task by task (ablation.json's, or computed from the runs' logs for an older one); null when none could be made. */
  paired: pairedStatsSchema.nullable().optional(),
});

/** Ablation report data. */
export type AblationReportData = z.infer<typeof ablationReportDataSchema>;

/** Whether a directory is an `ablate` output. */
export function isAblationDir(dir: string): boolean {
  return existsSync(path.join(dir, ABLATION_FILE));
}

/** What the plan file says about reproducing the ablation (a version-1 plan migrated), or null when it is missing or unreadable. */
function readPlan(dir: string): AblationPlanView | null {
  try {
    const p = readAblationPlan(dir);
    if (!p.config || !Array.isArray(p.variants) || typeof p.seeds !== 'number') return null;
    return { config: p.config, variants: p.variants, seeds: p.seeds, patch: p.patch ?? {} };
  } catch {
    return null;
  }
}

/**
 * Read and validate `ablation.json`, and each run's directory it lists for the comparison (a run
 * directory that is not here, e.g. on a queue worker's disk, is named as unreadable); fails with the
 * file name and the first problem. `outDir` is where the report goes (its reproduce command names it).
 */
export async function buildAblationData(dir: string, clock: Clock, outDir = dir, onProgress?: (p: { phase: 'read'; file: string; bytesRead: number; totalBytes: number }) => void): Promise<AblationReportData> {
  const file = path.join(dir, ABLATION_FILE);
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new Error(`${file}: not readable JSON (${(err as Error).message})`);
  }
  const parsed = ablationFileSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new Error(`${file}: ${issue.path.join('.') || '(root)'}: ${issue.message}`);
  }
  const variants = Object.entries(parsed.data.variants).map(([name, v]) => ({
    name,
    accuracy: v.accuracy,
    perNiche: Object.entries(v.perNiche).map(([niche, s]) => ({ niche, ...s })),
    stableSpecialists: v.stableSpecialists,
    runs: v.runs,
    tokens: v.tokens ?? null,
    completionTokens: v.completionTokens ?? null,
    usd: v.usd ?? null,
    perSeed: v.perSeed ?? [],
    notRun: v.notRunSeeds ?? [],
    failed: v.failedSeeds ?? [],
  }));
  const niches = [...new Set(variants.flatMap((v) => v.perNiche.map((p) => p.niche)))];
  const plan = readPlan(dir);
  const compared = await Promise.all(variants.map(async (v) => ({
    name: v.name,
    runs: await Promise.all(v.runs.map(async (runDir, i): Promise<ComparedRun> => comparedRun(runDir, v.perSeed[i], await readRunTrace(runDir, onProgress)))),
  })));
  return ablationReportDataSchema.parse({
    schemaVersion: REPORT_DATA_SCHEMA_VERSION, kind: 'ablation', generatedAt: clock.isoNow(), dir: path.resolve(dir),
    scenario: parsed.data.scenario ?? null, seeds: parsed.data.seeds, seedList: parsed.data.seedList ?? null, niches, variants,
    reproduce: plan ? ablationReproduceCommands(plan, outDir) : null, scenarioConfig: plan?.config ?? null,
    comparison: compareVariants(compared),
    deadline: deadlineData(parsed.data.deadline),
    paired: parsed.data.paired ?? pairedFromTraces(compared, undefined, parsed.data.seedList?.[0] ?? 0),
  });
}

/** A finished run as the comparison reads it: ablation.json's figures for the seed win over its log's, its summary's counts over the log's. */
function comparedRun(dir: string, seed: z.infer<typeof seedRow> | undefined, read: RunFigures): ComparedRun {
  return {
    seed: seed?.seed ?? 0, dir, trace: read.trace,
    ...(seed ? { accuracy: seed.accuracy, tokens: seed.tokens } : {}),
    gpuHours: seed?.virtualSeconds === undefined ? undefined : seed.virtualSeconds / 3600,
    ...(read.codream ? { codream: read.codream } : {}), ...(read.lineage ? { lineage: read.lineage } : {}),
  };
}

/** The deadline's figures for the report, from ablation.json's `deadline`. */
function deadlineData(d: z.infer<typeof ablationFileSchema>['deadline']): AblationReportData['deadline'] {
  if (!d) return null;
  return {
    hours: d.hours, predictedHours: d.predictedHours, profile: d.profile,
    variants: Object.entries(d.windows).map(([name, windows]) => ({ name, windows, solo: d.solo?.[name]?.solo ?? null, soloRan: d.solo?.[name]?.soloRan ?? false })),
  };
}

/** Section ids of an ablation report, in page order. */
export const ABLATION_SECTIONS = ['variants', 'paired', 'per-niche', 'stream', 'specialists', 'population', 'cost', 'seeds', 'runs', 'reproduce'] as const;

/** A mean ± sd cell; one seed has no spread, so its value stands alone. */
const meanSd = (s: { mean: number; sd: number }, n: number, f: (x: number) => string = fmt3) => (n > 1 ? `${f(s.mean)} ± ${f(s.sd)}` : f(s.mean));
/** Seeds behind a variant's figures. */
const seedsOf = (v: AblationReportData['variants'][number], seeds: number) => seeds - v.failed.length - v.notRun.length;

function meanSdLayers(valuesField: string, yTitle: string, sort: readonly string[], color: object, offset = false, scale: object = { domain: [0, 1] }): Record<string, unknown>[] {
  const x = offset ? { xOffset: { field: 'variant', type: 'nominal', sort } } : {};
  return [
    { mark: { type: 'bar' }, encoding: { y: { field: valuesField, type: 'quantitative', title: yTitle, scale }, color, ...x,
      tooltip: [{ field: 'variant' }, ...(offset ? [{ field: 'niche' }] : []), { field: 'mean', format: '.3f' }, { field: 'sd', format: '.3f' }] } },
    { mark: { type: 'rule', color: 'black' }, encoding: { y: { field: 'lo', type: 'quantitative' }, y2: { field: 'hi' }, ...x } },
  ];
}

/**
 * The sections of an ablation report: variants side by side. `live` (the watch page of a sweep
 * under way) makes every chart title say " so far (after N tasks)", N the tasks its runs have done.
 */
export function ablationSections(d: AblationReportData, live?: { readonly tasks: number }): Section[] {
  const now = live ? ` so far (after ${live.tasks} tasks)` : '';
  const names = d.variants.map((v) => v.name);
  const color = variantColor(names);
  const spread = `mean ± sd over ${d.seeds} seed${d.seeds > 1 ? 's' : ''}`;
  const band = (mean: number, sd: number, cap = 1) => ({ mean, sd, lo: Math.max(0, mean - sd), hi: Math.min(cap, mean + sd) });
  const empty = (id: string, heading: string, intro: string): Section => ({ id, heading, intro, charts: [], tables: [], notes: [] });
  const overall = empty('variants', 'Accuracy per variant', `Mean reward over all tasks, ${spread}.`);
  const perNiche = empty('per-niche', 'Accuracy per niche', `Mean reward per niche and variant, ${spread}.`);
  const specialists = empty('specialists', 'Stable specialists per variant', `Niches whose anchor stayed the same agent to the end, ${spread}.`);
  const runs = empty('runs', 'Runs', 'The run directories behind each variant; `evochamber report <run-dir>` reports any one of them.');
  if (d.variants.length === 0) {
    for (const s of [overall, perNiche, specialists]) s.notes.push('ablation.json lists no variants.');
    return [overall, pairedSection(null, []), perNiche, specialists, runs];
  }
  const stream = streamSection(d.comparison, names, now);
  const population = populationSection(d.comparison, names, now);
  overall.charts.push({
    id: 'ablation-accuracy', title: `Accuracy per variant${now}`,
    caption: 'Compare each ablation with the full system: a bar whose error bar stays clear of the full system\'s is a component that matters.',
    spec: vl({ data: { values: d.variants.map((v) => ({ variant: v.name, ...band(v.accuracy.mean, v.accuracy.sd) })) }, width: Math.min(MAX_PLOT_WIDTH, Math.max(240, d.variants.length * 48)),
      height: 220, encoding: { x: { field: 'variant', type: 'nominal', sort: names, title: 'variant', axis: { labelAngle: -30 } } },
      layer: meanSdLayers('mean', 'mean reward', names, color) }),
  });
  overall.tables.push({ caption: 'Accuracy per variant', headers: ['variant', 'mean', 'sd', 'runs'], rows: d.variants.map((v) => [v.name, fmt3(v.accuracy.mean), seedsOf(v, d.seeds) > 1 ? fmt3(v.accuracy.sd) : '–', v.runs.length]) });
  if (d.niches.length === 0) perNiche.notes.push('No per-niche figures in ablation.json.');
  else {
    perNiche.charts.push({
      id: 'ablation-niches', title: `Accuracy per niche, variants side by side${now}`,
      caption: 'Look for niches where one variant falls behind: that niche depends on the component the variant removes.',
      spec: vl({ data: { values: d.variants.flatMap((v) => v.perNiche.map((p) => ({ variant: v.name, niche: p.niche, ...band(p.mean, p.sd) }))) },
        // As wide as the bars need, at most the card's width: at 15 variants a bar narrows rather than the page scrolling.
        width: Math.min(MAX_PLOT_WIDTH, Math.max(360, d.niches.length * d.variants.length * 14)), height: 240,
        encoding: { x: { field: 'niche', type: 'nominal', sort: d.niches, title: 'niche', axis: { labelAngle: -30 } } },
        layer: meanSdLayers('mean', 'mean reward', names, color, true) }),
    });
    perNiche.tables.push({ caption: 'Mean reward per niche (mean ± sd)', headers: ['variant', ...d.niches],
      rows: d.variants.map((v) => [v.name, ...d.niches.map((n) => { const p = v.perNiche.find((x) => x.niche === n); return p ? meanSd(p, seedsOf(v, d.seeds)) : '–'; })]) });
  }
  const most = Math.max(...d.variants.map((v) => v.stableSpecialists.mean + v.stableSpecialists.sd));
  if (most <= 0) {
    specialists.notes.push('No variant had a stable specialist in any seed.');
  } else {
    specialists.charts.push({
      id: 'ablation-specialists', title: 'Stable specialists per variant',
      caption: 'More stable specialists means the pool divided the niches among its agents; compare variants without the population level.',
      spec: vl({ data: { values: d.variants.map((v) => ({ variant: v.name, ...band(v.stableSpecialists.mean, v.stableSpecialists.sd, Infinity) })) }, width: Math.min(MAX_PLOT_WIDTH, Math.max(240, d.variants.length * 48)),
        height: 200, encoding: { x: { field: 'variant', type: 'nominal', sort: names, title: 'variant', axis: { labelAngle: -30 } } },
        layer: meanSdLayers('mean', 'niches with a stable specialist', names, color, false, { domain: [0, Math.max(1, Math.ceil(most))] }) }),
    });
  }
  if (d.deadline) {
    const acc = new Map(d.variants.map((v) => [v.name, v]));
    overall.tables.push({
      caption: `Deadline ${d.deadline.hours} h (predicted ${d.deadline.predictedHours.toFixed(2)} h on ${d.deadline.profile}): each variant's in-flight window per seed (windowed runs: staleness guarded, evolve timing when-ready) and its accuracy against the same variant alone at in-flight 1`,
      headers: ['variant', 'window', 'accuracy', 'alone at in-flight 1', 'difference'],
      rows: d.deadline.variants.map((x) => {
        const v = acc.get(x.name);
        const n = v ? seedsOf(v, d.seeds) : 0;
        const diff = v && x.solo && x.soloRan ? `${((v.accuracy.mean - x.solo.mean) * 100).toFixed(1)} points` : x.soloRan ? '–' : 'the same runs';
        return [x.name, x.windows.join(', '), v ? meanSd(v.accuracy, n) : '–', x.solo ? meanSd(x.solo, n) : '– (no solo runs over a real server)', diff];
      }),
    });
  }
  specialists.tables.push({ caption: 'Stable specialists per variant', headers: ['variant', 'mean', 'sd'],
    rows: d.variants.map((v) => [v.name, v.stableSpecialists.mean.toFixed(2), v.stableSpecialists.sd.toFixed(2)]) });
  runs.tables.push({ caption: 'Run directories', headers: ['variant', 'run directory'], rows: d.variants.flatMap((v) => v.runs.map((r) => [v.name, r])) });
  const paired = pairedSection(d.paired, names, live ? 'Drawn when the sweep has ended: until then the runs have not graded the same tasks.' : undefined);
  return [overall, paired, perNiche, stream, specialists, population, costSection(d, now), seedsSection(d), runs, reproduceSection(d)];
}

/** Tokens and dollars per run, by variant: what each row of the table cost. */
function costSection(d: AblationReportData, now = ''): Section {
  const priced = d.variants.some((v) => v.usd !== null);
  const s: Section = { id: 'cost', heading: 'Cost per variant', intro: `Tokens per run (prompt plus completion, and completion alone)${priced ? ' and US dollars per run at the scenario\'s prices' : ''}, mean over the seeds.`, charts: [], tables: [], notes: [] };
  if (d.variants.every((v) => v.tokens === null)) {
    s.notes.push('This ablation.json has no token figures (written by an older version).');
    return s;
  }
  const k = (x: number) => `${(x / 1000).toFixed(1)}k`;
  s.charts.push(...costAccuracyCharts(d.comparison, d.variants.map((v) => v.name), now));
  s.tables.push({
    caption: 'Cost per run', headers: ['variant', 'tokens', 'completion tokens', ...(priced ? ['USD'] : [])],
    rows: d.variants.map((v) => {
      const n = seedsOf(v, d.seeds);
      return [v.name, v.tokens ? meanSd(v.tokens, n, k) : '–', v.completionTokens ? meanSd(v.completionTokens, n, k) : '–', ...(priced ? [v.usd ? meanSd(v.usd, n, (x) => x.toFixed(4)) : '–'] : [])];
    }),
  });
  return s;
}

/** Every seed's own figures, as a paper's per-seed appendix gives them. */
function seedsSection(d: AblationReportData): Section {
  const s: Section = { id: 'seeds', heading: 'Per seed', intro: 'Each run\'s accuracy, stable specialists and tokens; the figures above are their mean ± sd.', charts: [], tables: [], notes: [] };
  // The virtual-time column is there when any run has one ('–' for the others), else left off.
  const timed = d.variants.some((v) => v.perSeed.some((r) => r.virtualSeconds !== undefined));
  const width = timed ? 6 : 5;
  const rows = d.variants.flatMap((v) => [
    ...v.perSeed.map((r) => [v.name, r.seed, fmt3(r.accuracy), r.stableSpecialists, r.tokens, r.virtualSeconds === undefined ? '–' : `${(r.virtualSeconds / 3600).toFixed(2)} h`]),
    ...v.notRun.map((seed) => [v.name, seed, 'not run (budget spent)', '–', '–', '–']),
    ...v.failed.map((seed) => [v.name, seed, 'failed', '–', '–', '–']),
  ]).map((r) => r.slice(0, width));
  if (rows.length === 0) s.notes.push('This ablation.json has no per-seed rows (written by an older version).');
  else s.tables.push({ caption: 'Runs by seed', headers: ['variant', 'seed', 'accuracy', 'stable specialists', 'tokens', 'virtual time'].slice(0, width), rows });
  return s;
}

function reproduceSection(d: AblationReportData): Section {
  const base = { id: 'reproduce', heading: 'Reproduce', intro: `${d.variants.length} variants × ${d.seeds} seeds, as ablate ran them.`, charts: [], tables: [] };
  if (!d.reproduce) return { ...base, notes: ['No ablation-plan.json beside ablation.json: the command that made it is unknown.'] };
  return {
    ...base, notes: [],
    code: [
      { label: `The scenario ablate was given, with its overrides (saved beside this report as ${d.reproduce.scenarioFile}):`, text: d.reproduce.command },
      { label: 'Or from the original scenario file, if it is unchanged:', text: d.reproduce.fromOriginal },
      { label: 'What every run changed in the scenario (ablation-plan.json patch, by path):', text: patchLines(d.reproduce.patch) },
    ],
  };
}

/** Render the ablation report page. */
export function renderAblationPage(d: AblationReportData): Promise<RenderedPage> {
  return renderPage({
    title: `EvoChamber ablation — ${d.scenario ?? 'scenario'}: ${d.variants.length} variants × ${d.seeds} seeds`,
    subtitle: [`${d.seedList ? `Seeds ${d.seedList.join(', ')} · ` : ''}from ${d.dir}/${ABLATION_FILE}`],
    warnings: [],
    sections: ablationSections(d),
    footer: `Generated ${d.generatedAt} by evochamber report; data.json beside this file holds everything drawn here.`,
  });
}

/** `summary.md` of an ablation. */
export function ablationSummaryMarkdown(d: AblationReportData): string {
  return [
    `# EvoChamber ablation: ${d.scenario ?? 'scenario'} · ${d.variants.length} variants × ${d.seeds} seeds`,
    '',
    markdownTable(['variant', 'accuracy', 'stable specialists', ...d.niches, 'tokens/run'], d.variants.map((v) => {
      const n = seedsOf(v, d.seeds);
      return [
        v.name, meanSd(v.accuracy, n), meanSd(v.stableSpecialists, n, (x) => x.toFixed(2)),
        ...d.niches.map((ni) => { const p = v.perNiche.find((x) => x.niche === ni); return p ? meanSd(p, n) : '–'; }),
        v.tokens ? meanSd(v.tokens, n, (x) => `${(x / 1000).toFixed(1)}k`) : '–',
      ];
    })),
    '',
    ...(d.reproduce ? ['```sh', d.reproduce.command, `# or, from the original scenario file: ${d.reproduce.fromOriginal}`, '```', ''] : []),
  ].join('\n');
}
