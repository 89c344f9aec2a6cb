import { z } from 'zod';
import { STREAM_WINDOW, type RunTrace } from './collect/run-trace-collector';
import { stat as meanAndSd } from '../core/stats/mean-sd';

/** Most points per variant in the stream's rolling-accuracy series (thinned evenly; the last is kept). */
const MAX_POINTS = 300;

const stat = z.object({ mean: z.number(), sd: z.number() });

/** The comparison of variants an ablation report (and its live page) draws beyond accuracy tables. */
export const comparisonSchema = z.object({
  /** Graded tasks in the rolling mean over the stream. */
  window: z.number(),
  /** Rolling mean reward over the stream, averaged over the seeds that reached each task; one series per variant. */
  rolling: z.array(z.object({ variant: z.string(), task: z.number(), rolling: z.number(), seeds: z.number() })),
  /** CoDream and lifecycle counts per run, mean ± sd over the seeds. */
  population: z.array(z.object({
    variant: z.string(), runs: z.number(),
    sessions: stat, insights: stat, routed: stat,
    lineage: z.record(z.string(), stat),
  })),
  /** One point per variant: mean accuracy against mean cost per run; `pareto` marks the variants no other beats on both. */
  cost: z.array(z.object({
    variant: z.string(), accuracy: z.number(), tokens: z.number(), gpuHours: z.number().nullable(),
    /** Sample sd over the variant's runs (0 for one run): the chart's error bars. */
    accuracySd: z.number().optional(), tokensSd: z.number().optional(), gpuHoursSd: z.number().nullable().optional(),
    pareto: z.boolean(), paretoGpu: z.boolean(),
  })),
  /** Runs whose event log could not be read (the rolling series leaves them out). */
  unreadable: z.array(z.string()),
});

/** A comparison of variants. */
export type Comparison = z.infer<typeof comparisonSchema>;

/** One run of a variant as the comparison reads it: its trace (null when its log is unreadable) and, for a finished run, its summary's figures. */
export interface ComparedRun {
  readonly seed: number;
  readonly dir: string;
  readonly trace: RunTrace | null;
  /** From the summary when the run finished (they win over the trace's), else absent. */
  readonly accuracy?: number;
  readonly tokens?: number;
  readonly gpuHours?: number;
  readonly codream?: { readonly sessions: number; readonly insights: number; readonly routed: number };
  readonly lineage?: Readonly<Record<string, number>>;
}

/** Build the comparison from each variant's runs (in variant order). */
export function compareVariants(variants: readonly { readonly name: string; readonly runs: readonly ComparedRun[] }[]): Comparison {
  const rolling: Comparison['rolling'] = [];
  const population: Comparison['population'] = [];
  const points: { variant: string; accuracy: number; tokens: number; gpuHours: number | null; accuracySd: number; tokensSd: number; gpuHoursSd: number | null }[] = [];
  const unreadable: string[] = [];
  for (const v of variants) {
    for (const r of v.runs) if (!r.trace) unreadable.push(r.dir);
    const traces = v.runs.map((r) => r.trace).filter((t): t is RunTrace => t !== null && t.graded > 0);
    rolling.push(...rollingOf(v.name, traces));
    const runs = v.runs.filter((r) => r.accuracy !== undefined || (r.trace?.graded ?? 0) > 0);
    if (runs.length === 0) continue;
    const codream = runs.map((r) => r.codream ?? r.trace?.codream ?? { sessions: 0, insights: 0, routed: 0 });
    const lineage = runs.map((r) => r.lineage ?? r.trace?.lineage ?? {});
    const ops = [...new Set(lineage.flatMap((l) => Object.keys(l)))];
    population.push({
      variant: v.name, runs: runs.length,
      sessions: meanAndSd(codream.map((c) => c.sessions)), insights: meanAndSd(codream.map((c) => c.insights)), routed: meanAndSd(codream.map((c) => c.routed)),
      lineage: Object.fromEntries(ops.map((op) => [op, meanAndSd(lineage.map((l) => l[op] ?? 0))])),
    });
    const hours = runs.map((r) => r.gpuHours);
    const acc = meanAndSd(runs.map((r) => r.accuracy ?? r.trace?.accuracy ?? 0));
    const tok = meanAndSd(runs.map((r) => r.tokens ?? r.trace?.tokens ?? 0));
    const gpu = hours.every((h) => h !== undefined) ? meanAndSd(hours as number[]) : null;
    points.push({
      variant: v.name, accuracy: acc.mean, tokens: Math.round(tok.mean), gpuHours: gpu?.mean ?? null,
      accuracySd: acc.sd, tokensSd: Math.round(tok.sd), gpuHoursSd: gpu?.sd ?? null,
    });
  }
  const front = paretoFront(points.map((p) => ({ cost: p.tokens, value: p.accuracy })));
  const gpu = points.every((p) => p.gpuHours !== null) ? paretoFront(points.map((p) => ({ cost: p.gpuHours!, value: p.accuracy }))) : points.map(() => false);
  return { window: STREAM_WINDOW, rolling, population, cost: points.map((p, i) => ({ ...p, pareto: front[i]!, paretoGpu: gpu[i]! })), unreadable };
}

/**
 * For each point, whether it is on the Pareto front: no other point costs no more and scores no
 * less, with one of the two strictly better. Ties (same cost and score) are all on the front.
 */
export function paretoFront(points: readonly { readonly cost: number; readonly value: number }[]): boolean[] {
  return points.map((p, i) => !points.some((q, j) => j !== i && q.cost <= p.cost && q.value >= p.value && (q.cost < p.cost || q.value > p.value)));
}

/** A variant's rolling series: at each task, the mean over the seeds whose run has graded that many. */
function rollingOf(variant: string, traces: readonly RunTrace[]): Comparison['rolling'] {
  if (traces.length === 0) return [];
  const last = Math.max(...traces.map((t) => t.graded));
  const step = Math.max(1, Math.ceil(last / MAX_POINTS));
  const out: Comparison['rolling'] = [];
  for (let task = step; ; task = Math.min(last, task + step)) {
    const at = traces.filter((t) => t.graded >= task).map((t) => t.rolling[task - 1]!);
    out.push({ variant, task, rolling: Math.round((at.reduce((a, b) => a + b, 0) / at.length) * 1e4) / 1e4, seeds: at.length });
    if (task === last) break;
  }
  return out;
}
