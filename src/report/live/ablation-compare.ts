import path from 'node:path';
import type { Clock } from '../../core/clock';
import { ablationSections, type AblationReportData } from '../ablation-report';
import type { RunTrace } from '../collect/run-trace-collector';
import { renderSections } from '../html/page';
import { REPORT_DATA_SCHEMA_VERSION } from '../report-data';
import { compareVariants, type ComparedRun } from '../variant-comparison';
import { stat } from '../../core/stats/mean-sd';
import { pairedFromTraces, pairedStatsSchema } from '../paired-stats';
import { readFileSync } from 'node:fs';
import type { PairedStats } from '../../core/stats/paired-comparison';

/** ablation.json's paired comparison once ablate has added it (it carries the --reference asked for). */
function savedPaired(dir: string): PairedStats | null {
  try {
    const p = pairedStatsSchema.safeParse((JSON.parse(readFileSync(path.join(dir, 'ablation.json'), 'utf8')) as { paired?: unknown }).paired);
    return p.success ? p.data : null;
  } catch {
    return null;
  }
}

/** The sections of an ablation report its live page draws (the rest need the finished sweep). */
const LIVE_SECTIONS: ReadonlySet<string> = new Set(['variants', 'paired', 'per-niche', 'stream', 'population', 'cost']);

/** One run of a sweep under way, as the live comparison reads it. */
export interface LiveRun {
  /** Its directory name, `<variant>-s<seed>`. */
  readonly name: string;
  readonly dir: string;
  readonly trace: RunTrace;
}

/** The comparison charts as last drawn, and the tasks (over every run) they were drawn after. */
export interface AblationView {
  readonly tasksDone: number;
  readonly html: string;
}

/**
 * The ablation report's comparison of variants, from the runs' logs so far: accuracy per variant
 * and per niche, accuracy over the stream, CoDream and lifecycle counts, cost against accuracy —
 * every title saying " so far (after N tasks)". `variants` orders them (the plan's order).
 */
export function liveAblationData(dir: string, variants: readonly string[], runs: readonly LiveRun[], clock: Clock, ended = false, nicheOrder: readonly string[] = []): AblationReportData {
  const byVariant = new Map<string, { seed: number; run: LiveRun }[]>();
  for (const r of runs) {
    const m = /^(.*)-s(\d+)$/.exec(r.name);
    if (!m || r.trace.graded === 0) continue;
    const list = byVariant.get(m[1]!) ?? [];
    list.push({ seed: Number(m[2]), run: r });
    byVariant.set(m[1]!, list);
  }
  const names = [...variants.filter((v) => byVariant.has(v)), ...[...byVariant.keys()].filter((v) => !variants.includes(v))];
  const seen = new Set(runs.flatMap((r) => Object.keys(r.trace.perNiche)));
  // The scenario's order (the report's), then any niche it does not name.
  const niches = [...nicheOrder.filter((n) => seen.has(n)), ...[...seen].filter((n) => !nicheOrder.includes(n))];
  const rows = names.map((name) => {
    const rs = byVariant.get(name)!;
    const t = rs.map((x) => x.run.trace);
    return {
      name, accuracy: stat(t.map((x) => x.accuracy ?? 0)),
      perNiche: niches.filter((n) => t.some((x) => x.perNiche[n] !== undefined)).map((niche) => ({ niche, ...stat(t.filter((x) => x.perNiche[niche] !== undefined).map((x) => x.perNiche[niche]!)) })),
      stableSpecialists: { mean: 0, sd: 0 }, runs: rs.map((x) => x.run.dir), tokens: stat(t.map((x) => x.tokens)), completionTokens: null, usd: null,
      perSeed: [], notRun: [], failed: [],
    };
  });
  const compared = names.map((name) => ({ name, runs: byVariant.get(name)!.map(({ seed, run }): ComparedRun => ({ seed, dir: run.dir, trace: run.trace })) }));
  return {
    schemaVersion: REPORT_DATA_SCHEMA_VERSION, kind: 'ablation', generatedAt: clock.isoNow(), dir: path.resolve(dir), scenario: null,
    // The spread is over the runs each variant has so far: the seeds behind a figure are its runs.
    seeds: Math.max(1, ...rows.map((r) => r.runs.length)), seedList: null, niches, variants: rows,
    reproduce: null, scenarioConfig: null, comparison: compareVariants(compared),
    // Paired only at the end: before, the runs have graded different prefixes of the stream. The seed is the first run's, as ablate's.
    paired: ended ? savedPaired(dir) ?? pairedFromTraces(compared, undefined, Math.min(...compared.flatMap((v) => v.runs.map((r) => r.seed)))) : null,
  };
}

/** Draw the live comparison: the report's own sections, titled "so far (after N tasks)" until the sweep has `ended`. */
export async function renderAblationView(d: AblationReportData, tasksDone: number, ended = false): Promise<AblationView> {
  if (d.variants.length === 0) return { tasksDone, html: '<p class="note">No run has graded a task yet: the comparison charts appear with the first.</p>' };
  const sections = ablationSections(d, ended ? undefined : { tasks: tasksDone }).filter((s) => LIVE_SECTIONS.has(s.id));
  const { html } = await renderSections(sections);
  return { tasksDone, html };
}
