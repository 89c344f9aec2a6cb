import type { ReportData } from '../report-data';
import { fmt3, soFar, vl, type Section } from './section';

/** Rolling accuracy per niche, with the stream's block boundaries as rules. */
export function accuracySection(d: ReportData): Section {
  const a = d.accuracy;
  const section: Section = {
    id: 'accuracy',
    heading: 'Accuracy per niche',
    intro: `Mean reward (exact match for math, pass@1 for code, token F1 for QA), 0–1. Overall ${fmt3(a.overall)} over ${d.run.tasksDone} tasks; exact ${fmt3(a.exactRate)}.`,
    charts: [],
    tables: [],
    notes: [],
  };
  if (a.series.length === 0) {
    section.notes.push('No task was graded in this run, so there is no accuracy to draw.');
    return section;
  }
  const layers: Record<string, unknown>[] = [
    {
      data: { values: a.series },
      mark: { type: 'line', strokeWidth: 1.8 },
      encoding: {
        x: { field: 'task', type: 'quantitative', title: 'task number (in commit order)' },
        y: { field: 'rolling', type: 'quantitative', title: `rolling mean reward (last ${a.rollingWindow})`, scale: { domain: [0, 1] } },
        color: { field: 'niche', type: 'nominal', title: 'niche', sort: d.niches },
        tooltip: [{ field: 'niche' }, { field: 'task' }, { field: 'rolling', title: 'rolling mean', format: '.3f' }],
      },
    },
  ];
  if (a.blocks.length > 0) {
    layers.push({
      data: { values: a.blocks.map((b) => ({ ...b, label: `block ${b.block}` })) },
      mark: { type: 'rule', strokeDash: [4, 3], color: '#555' },
      encoding: { x: { field: 'task', type: 'quantitative' }, tooltip: [{ field: 'label', title: 'starts' }, { field: 'task' }] },
    });
    layers.push({
      data: { values: a.blocks.map((b) => ({ ...b, label: `block ${b.block}` })) },
      mark: { type: 'text', align: 'left', dx: 3, fontSize: 10, color: '#555' },
      encoding: { x: { field: 'task', type: 'quantitative' }, y: { value: 8 }, text: { field: 'label' } },
    });
  }
  section.charts.push({
    id: 'accuracy-rolling',
    title: `Rolling accuracy per niche (window ${a.rollingWindow})${soFar(d.run)}`,
    caption: a.blocks.length > 0
      ? 'Look at each line right after a dashed block boundary: a dip that recovers faster in later blocks is adaptation at work.'
      : 'Look for lines that climb and stay up: the team is learning the niche (this stream has one block, so there are no block boundaries).',
    spec: vl({ width: 680, height: 280, layer: layers }),
  });
  section.tables.push({
    caption: 'Accuracy per niche',
    headers: ['niche', 'tasks', 'mean reward', 'exact'],
    rows: a.perNiche.map((p) => [p.niche, p.tasks, fmt3(p.mean), fmt3(p.tasks ? p.correct / p.tasks : null)]),
  });
  return section;
}
