import type { Comparison } from '../variant-comparison';
import { VARIANT_PALETTE } from './palette';
import { paddedDomain, placeLabels } from './label-placement';
import type { Chart } from './render-chart';
import { SI_AXIS, vl, type Section } from './section';

/** One fixed colour per variant (in the ablation's order, VARIANT_PALETTE: distinct up to 24), the same in every chart of the page. */
export function variantColor(names: readonly string[]): Record<string, unknown> {
  return {
    field: 'variant', type: 'nominal', title: 'variant', sort: [...names],
    scale: { domain: [...names], range: names.map((_, i) => VARIANT_PALETTE[i % VARIANT_PALETTE.length]!) },
    legend: { labelLimit: 0, symbolLimit: 0 },
  };
}

/** The widest a chart's plot may be and still fit its card beside a variant legend at 1,400 px. */
export const MAX_PLOT_WIDTH = 760;

/** Rolling accuracy over the stream, one line per variant. `soFar` is the live title's " so far (after N tasks)". */
export function streamSection(c: Comparison, names: readonly string[], soFar = ''): Section {
  const s: Section = {
    id: 'stream', heading: 'Accuracy over the stream',
    intro: `Rolling mean reward over the last ${c.window} graded tasks of every niche, averaged over the seeds that reached each task.`,
    charts: [], tables: [], notes: [],
  };
  if (c.rolling.length === 0) {
    s.notes.push(c.unreadable.length ? `No run's event log could be read (${c.unreadable.length} unreadable), so there is no stream to draw.` : 'No task has been graded yet.');
    return s;
  }
  s.charts.push({
    id: 'ablation-rolling', title: `Rolling accuracy over the stream${soFar}`,
    caption: 'A line that climbs above the others and stays there is a variant that keeps learning; a gap that opens late is knowledge that builds up.',
    spec: vl({
      width: 680, height: 280, data: { values: c.rolling }, mark: { type: 'line', strokeWidth: 1.8 },
      encoding: {
        x: { field: 'task', type: 'quantitative', title: 'graded tasks (in commit order)' },
        y: { field: 'rolling', type: 'quantitative', title: `rolling mean reward (last ${c.window})`, scale: { domain: [0, 1] } },
        color: variantColor(names),
        tooltip: [{ field: 'variant' }, { field: 'task' }, { field: 'rolling', format: '.3f' }, { field: 'seeds' }],
      },
    }),
  });
  if (c.unreadable.length) s.notes.push(`Left out, their event log unreadable: ${c.unreadable.join(', ')}.`);
  return s;
}

/** CoDream sessions and insights, and lifecycle decisions by operator, per run. */
export function populationSection(c: Comparison, names: readonly string[], soFar = ''): Section {
  const s: Section = {
    id: 'population', heading: 'CoDream and lifecycle per variant',
    intro: 'CoDream sessions, insights crystallized and deliveries to agents, and lifecycle decisions applied by operator, per run (mean ± sd over the seeds).',
    charts: [], tables: [], notes: [],
  };
  if (c.population.length === 0) {
    s.notes.push(c.unreadable.length ? `No run's directory could be read (${c.unreadable.length} unreadable), so there are no counts to compare.` : 'No run has graded a task yet.');
    return s;
  }
  const ops = [...new Set(c.population.flatMap((p) => Object.keys(p.lineage)))];
  const f = (x: { mean: number; sd: number }, n: number) => (n > 1 ? `${x.mean.toFixed(1)} ± ${x.sd.toFixed(1)}` : x.mean.toFixed(1));
  s.tables.push({
    caption: `CoDream and lifecycle counts per run${soFar}`, headers: ['variant', 'runs', 'CoDream sessions', 'insights', 'routed', ...ops],
    rows: c.population.map((p) => [p.variant, p.runs, f(p.sessions, p.runs), f(p.insights, p.runs), f(p.routed, p.runs), ...ops.map((o) => (p.lineage[o] ? f(p.lineage[o], p.runs) : '0'))]),
  });
  const values = c.population.flatMap((p) => [
    { variant: p.variant, count: 'CoDream sessions', mean: p.sessions.mean },
    { variant: p.variant, count: 'insights', mean: p.insights.mean },
    ...ops.map((o) => ({ variant: p.variant, count: o, mean: p.lineage[o]?.mean ?? 0 })),
  ]);
  if (values.every((v) => v.mean === 0)) { s.notes.push('No variant ran a CoDream session or a lifecycle decision.'); return s; }
  const counts = ['CoDream sessions', 'insights', ...ops].filter((k) => values.some((v) => v.count === k && v.mean > 0));
  // One small chart per count, each on its own axis: 1,200 insights would flatten 3 forks to nothing on a shared one.
  s.charts.push({
    id: 'ablation-population', title: `CoDream and lifecycle per run${soFar}`,
    caption: 'One panel per count, each on its own scale. Variants without the population level have no bars: compare what the full system does with its CoDream sessions and lifecycle decisions.',
    spec: vl({
      data: { values: values.filter((v) => counts.includes(v.count)) },
      facet: { field: 'count', type: 'nominal', sort: counts, title: null, header: { labelFontSize: 12, labelFontWeight: 'bold' } },
      columns: 4, resolve: { scale: { y: 'independent' } },
      spec: {
        width: Math.max(120, Math.min(170, names.length * 12)), height: 150, mark: { type: 'bar' },
        encoding: {
          x: { field: 'variant', type: 'nominal', sort: [...names], axis: null },
          y: { field: 'mean', type: 'quantitative', title: 'per run (mean over seeds)', axis: { ...SI_AXIS, tickMinStep: 1 } },
          color: variantColor(names),
          tooltip: [{ field: 'variant' }, { field: 'count' }, { field: 'mean', format: '.1f' }],
        },
      },
    }),
  });
  return s;
}

/**
 * Accuracy against cost per run, one point per variant with ±1 sd error bars over the seeds on both
 * axes, the Pareto front drawn through the variants nothing beats on both. Labels sit beside their
 * points where they fit without overlap (label-placement.ts); the others are named by the legend.
 */
export function costAccuracyCharts(c: Comparison, names: readonly string[], soFar = ''): Chart[] {
  if (c.cost.length === 0) return [];
  const W = 520;
  const H = 300;
  const chart = (id: string, field: 'tokens' | 'gpuHours', front: 'pareto' | 'paretoGpu', title: string, axis: string): Chart => {
    const sdOf = (p: Comparison['cost'][number]) => (field === 'tokens' ? p.tokensSd ?? 0 : p.gpuHoursSd ?? 0);
    const pts = c.cost.map((p) => {
      const cost = p[field] as number;
      const acc = p.accuracySd ?? 0;
      return { ...p, cost, costLo: cost - sdOf(p), costHi: cost + sdOf(p), accLo: p.accuracy - acc, accHi: p.accuracy + acc, front: p[front] ? 'on the Pareto front' : 'dominated' };
    });
    const line = pts.filter((p) => p[front]).sort((a, b) => a.cost - b.cost);
    const xDomain = paddedDomain(pts.flatMap((p) => [p.costLo, p.costHi]));
    const yDomain = paddedDomain(pts.flatMap((p) => [p.accLo, p.accHi]));
    const x = { field: 'cost', type: 'quantitative', title: axis, scale: { domain: xDomain, nice: false, zero: false }, axis: field === 'tokens' ? SI_AXIS : { format: '.2~f' } };
    const y = { field: 'accuracy', type: 'quantitative', title: 'mean reward', scale: { domain: yDomain, nice: false, zero: false }, axis: { format: '.2~f' } };
    // Labels: the Pareto front's first, then by accuracy.
    const order = [...pts].sort((a, b) => Number(b[front]) - Number(a[front]) || b.accuracy - a.accuracy);
    const labels = placeLabels(order.map((p) => ({ x: p.cost, y: p.accuracy, text: p.variant })), { width: W, height: H, xDomain, yDomain });
    const textLayer = (align: 'left' | 'right' | 'center') => ({
      data: { values: labels.filter((l) => l.align === align) }, mark: { type: 'text', align, baseline: 'middle', fontSize: 10, color: '#333' },
      encoding: { x: { ...x, field: 'x' }, y: { ...y, field: 'y' }, text: { field: 'text' } },
    });
    const dropped = pts.length - labels.length;
    return {
      id, title: `${title}${soFar}`,
      caption: `Variants on the dashed Pareto front are the ones worth their cost: each one left of another is cheaper, and none above it is cheaper too. Bars: ±1 sd over the seeds.${dropped > 0 ? ` ${dropped} label${dropped === 1 ? '' : 's'} left out where ${dropped === 1 ? 'it' : 'they'} would overlap: the legend names every colour.` : ''}`,
      spec: vl({
        width: W, height: H,
        layer: [
          { data: { values: line }, mark: { type: 'line', strokeDash: [5, 3], color: '#333', strokeWidth: 1.2, interpolate: 'step-after' }, encoding: { x, y } },
          { data: { values: pts }, mark: { type: 'rule', strokeWidth: 1.2, opacity: 0.7 }, encoding: { x, y: { ...y, field: 'accLo' }, y2: { field: 'accHi' }, color: variantColor(names) } },
          { data: { values: pts }, mark: { type: 'rule', strokeWidth: 1.2, opacity: 0.7 }, encoding: { x: { ...x, field: 'costLo' }, x2: { field: 'costHi' }, y, color: variantColor(names) } },
          {
            data: { values: pts }, mark: { type: 'point', filled: true, size: 110, opacity: 1 },
            encoding: {
              x, y, color: variantColor(names),
              shape: { field: 'front', type: 'nominal', title: null, scale: { domain: ['on the Pareto front', 'dominated'], range: ['diamond', 'circle'] }, legend: { labelLimit: 0 } },
              tooltip: [{ field: 'variant' }, { field: 'accuracy', format: '.3f' }, { field: 'accuracySd', title: 'sd', format: '.3f' }, { field: 'cost', title: axis, format: field === 'tokens' ? ',.0f' : '.3f' }, { field: 'front' }],
            },
          },
          ...(['left', 'right', 'center'] as const).map(textLayer),
        ],
      }),
    };
  };
  const out = [chart('ablation-cost-tokens', 'tokens', 'pareto', 'Accuracy against tokens per run', 'tokens per run (prompt + completion)')];
  if (c.cost.every((p) => p.gpuHours !== null)) out.push(chart('ablation-cost-gpu', 'gpuHours', 'paretoGpu', 'Accuracy against GPU-hours per run', 'GPU-hours per run (virtual, one server)'));
  return out;
}
