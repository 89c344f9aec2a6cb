import type { PairedStats } from '../../core/stats/paired-comparison';
import { variantColor } from './variant-charts';
import { vl, type Section } from './section';

const signed = (x: number | null) => (x === null ? '–' : `${x >= 0 ? '+' : ''}${x.toFixed(3)}`);
const pv = (x: number | null) => (x === null ? '–' : x < 0.001 ? '< 0.001' : x.toFixed(3));

/** Whether a row differs from the reference after Holm's correction, in words (the chart's legend and the table say it). */
export function verdict(r: PairedStats['rows'][number]): string {
  if (r.pHolm === null || r.difference === null) return 'no graded tasks';
  if (r.pHolm >= 0.05) return 'no difference shown';
  return r.difference < 0 ? 'worse than the reference' : 'better than the reference';
}

/**
 * Each variant against the reference, task by task: an interval plot (the mean per-task reward
 * difference and its 95 % bootstrap interval, a line at zero) and the table with p-values before and
 * after Holm's correction. `paired` null (one variant, or no run's log readable) says why in a note.
 */
export function pairedSection(paired: PairedStats | null | undefined, names: readonly string[], why = 'A paired comparison needs two variants whose runs\' logs are on this machine.'): Section {
  const s: Section = {
    id: 'paired', heading: paired ? `Against ${paired.reference}, task by task` : 'Against the reference, task by task',
    intro: paired
      ? `Each variant's reward minus ${paired.reference}'s on the same task (same seed, same task id), averaged over the tasks both graded; ` +
        `the bar is its ${Math.round(paired.level * 100)} % interval (${paired.resamples} bootstrap resamples of the tasks within each seed), ` +
        `p is a two-sided sign-flip test (${paired.permutations} draws), corrected for ${paired.rows.filter((r) => r.p !== null).length} comparisons by Holm's method. ` +
        'Rows marked unpaired share no task with the reference (other seeds or streams): their tasks are compared as independent samples, a far weaker test.'
      : undefined,
    charts: [], tables: [], notes: [],
  };
  if (!paired || paired.rows.length === 0) { s.notes.push(why); return s; }
  const rows = paired.rows.filter((r) => r.difference !== null);
  const order = names.filter((n) => rows.some((r) => r.variant === n));
  if (rows.length) {
    const values = rows.map((r) => ({ variant: r.variant, difference: r.difference, lo: r.lo, hi: r.hi, test: r.test, p: r.p, pHolm: r.pHolm, verdict: verdict(r) }));
    const y = { field: 'variant', type: 'nominal', sort: order, title: null };
    s.charts.push({
      id: 'ablation-paired', title: `Reward difference against ${paired.reference}, with ${Math.round(paired.level * 100)} % intervals`,
      caption: `A bar that crosses the zero line is a variant not shown to differ from ${paired.reference}; a filled point is one whose Holm-corrected p is below 0.05.`,
      spec: vl({
        data: { values }, width: 520, height: { step: 22 },
        layer: [
          { mark: { type: 'rule', color: '#888', strokeDash: [4, 3] }, data: { values: [{ zero: 0 }] }, encoding: { x: { field: 'zero', type: 'quantitative' } } },
          { mark: { type: 'rule', strokeWidth: 2 }, encoding: { y, x: { field: 'lo', type: 'quantitative', title: `mean reward difference (variant − ${paired.reference})`, axis: { format: '+.2f' } }, x2: { field: 'hi' }, color: { ...variantColor(names), legend: null } } },
          {
            mark: { type: 'point', size: 70, strokeWidth: 2 },
            encoding: {
              y, x: { field: 'difference', type: 'quantitative' }, color: { ...variantColor(names), legend: null },
              fill: { condition: { test: 'datum.pHolm < 0.05', field: 'variant', type: 'nominal', scale: variantColor(names)['scale'], legend: null }, value: 'white' },
              tooltip: [{ field: 'variant' }, { field: 'test' }, { field: 'difference', format: '+.3f' }, { field: 'lo', format: '+.3f' }, { field: 'hi', format: '+.3f' }, { field: 'p', format: '.4f' }, { field: 'pHolm', title: 'p (Holm)', format: '.4f' }, { field: 'verdict' }],
            },
          },
        ],
      }),
    });
  }
  s.tables.push({
    caption: `Per-task reward difference against ${paired.reference}`,
    headers: ['variant', 'test', 'tasks', 'seeds', 'difference', `${Math.round(paired.level * 100)} % interval`, 'p', 'p (Holm)', 'reading'],
    rows: paired.rows.map((r) => [r.variant, r.test, r.referenceTasks !== undefined ? `${r.tasks} vs ${r.referenceTasks}` : r.tasks, r.seeds.join(', '), signed(r.difference),
      r.lo === null ? '–' : `[${signed(r.lo)}, ${signed(r.hi)}]`, pv(r.p), pv(r.pHolm), verdict(r)]),
  });
  return s;
}
