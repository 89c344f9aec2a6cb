import type { ReportData } from '../report-data';
import { STRUCTURE_COLORS, withUnknowns } from './palette';
import { soFar, vl, type Section } from './section';

/** LeadLearn's structure choices per niche, stacked per bin of tasks. */
export function structureSection(d: ReportData): Section {
  const s = d.structures;
  const section: Section = {
    id: 'structures',
    heading: 'Structure choices per niche',
    intro: `How each niche's tasks were worked (structure.chosen events), counted in bins of ${s.binSize} tasks.`,
    charts: [],
    tables: [],
    notes: [],
  };
  if (s.bins.length === 0) {
    section.notes.push('No structure choices were logged in this run (no structure.chosen events).');
    return section;
  }
  const colors = withUnknowns(STRUCTURE_COLORS, s.bins.map((b) => b.structure));
  const used = colors.domain.filter((x) => s.bins.some((b) => b.structure === x));
  const niches = d.niches.filter((n) => s.bins.some((b) => b.niche === n));
  const binLabels = [...new Set(s.bins.map((b) => b.bin))].sort((a, b) => a - b).map((b) => `${b * s.binSize + 1}–${(b + 1) * s.binSize}`);
  section.charts.push({
    id: 'structures',
    title: `Structure choices per niche over time${soFar(d.run)}`,
    caption: 'Look for a niche whose bars turn one colour: LeadLearn has settled on a structure for it; niches settling on different colours is the team level specializing.',
    spec: vl({
      data: { values: s.bins.map((b) => ({ ...b, bins: `${b.start + 1}–${b.end}` })) },
      mark: { type: 'bar' },
      width: { step: Math.max(14, Math.min(40, Math.floor(560 / Math.max(1, binLabels.length)))) },
      height: 70,
      encoding: {
        row: { field: 'niche', type: 'nominal', sort: niches, title: null, header: { labelAngle: 0, labelAlign: 'left', labelFontWeight: 600 } },
        x: { field: 'bins', type: 'ordinal', sort: binLabels, title: 'tasks (bin, in start order)' },
        y: { field: 'count', type: 'quantitative', stack: 'zero', title: 'tasks' },
        color: { field: 'structure', type: 'nominal', title: 'structure', scale: { domain: used, range: used.map((x) => colors.range[colors.domain.indexOf(x)]!) } },
        order: { field: 'structure' },
        tooltip: [{ field: 'niche' }, { field: 'structure' }, { field: 'count', title: 'tasks' }, { field: 'bins', title: 'tasks' }],
      },
      resolve: { scale: { y: 'independent' } },
    }),
  });
  section.tables.push({
    caption: 'Tasks per structure and niche (whole run)',
    headers: ['niche', ...used],
    rows: niches.map((n) => [n, ...used.map((x) => s.totals[n]?.[x] ?? 0)]),
  });
  return section;
}
