import type { ReportData } from '../report-data';
import { COMPETENCE_SCHEME, type ColorScale } from './palette';
import { fmt3, soFar, vl, type Section } from './section';

/** Small multiples drawn at most (evenly chosen, always with the last window). */
const MAX_MULTIPLES = 12;

function heatmapLayers(agents: readonly string[], niches: readonly string[]): Record<string, unknown> {
  return {
    encoding: {
      x: { field: 'niche', type: 'nominal', sort: niches, title: 'niche', axis: { labelAngle: -30 } },
      y: { field: 'agentId', type: 'nominal', sort: agents, title: 'agent' },
    },
    layer: [
      {
        mark: { type: 'rect', stroke: 'white' },
        encoding: {
          color: { field: 'competence', type: 'quantitative', title: 'competence', scale: { domain: [0, 1], scheme: COMPETENCE_SCHEME } },
          tooltip: [
            { field: 'agentId', title: 'agent' }, { field: 'niche' },
            { field: 'competence', format: '.3f' }, { field: 'exposure', title: 'tasks seen' },
          ],
        },
      },
      {
        mark: { type: 'text', fontSize: 10 },
        encoding: {
          text: { field: 'competence', format: '.2f' },
          color: { condition: { test: 'datum.competence > 0.6', value: 'black' }, value: 'white' },
        },
      },
    ],
  };
}

/** Competence heatmap at the end, and one small heatmap per window. */
export function competenceSection(d: ReportData, agents: ColorScale): Section {
  const section: Section = {
    id: 'competence',
    heading: 'Competence',
    intro: 'EWMA competence of each agent in each niche (0–1, from competence.updated events). Blank cells: the agent never worked in that niche.',
    charts: [],
    tables: [],
    notes: [],
  };
  if (d.competence.final.length === 0) {
    section.notes.push('No competence updates in this run (no task was graded successfully), so there is no competence to draw.');
    return section;
  }
  const live = agents.domain.filter((a) => d.competence.final.some((c) => c.agentId === a));
  section.charts.push({
    id: 'competence-final',
    title: d.run.finished ? `Competence at the end (after ${d.run.tasksDone} tasks)` : `Competence${soFar(d.run)}`,
    caption: 'Look for bright cells standing alone in a column: an agent clearly ahead of the others in a niche is a specialist; an even column means nobody specialized.',
    spec: vl({ data: { values: d.competence.final }, width: { step: 56 }, height: { step: 26 }, ...heatmapLayers(live, d.niches) }),
  });
  const windows = pickWindows(d.competence.windows);
  if (windows.length > 0) {
    const values = windows.flatMap((w) => w.cells.map((c) => ({ ...c, window: `after ${w.tasksSeen} tasks`, order: w.window })));
    const everyone = agents.domain.filter((a) => values.some((c) => c.agentId === a));
    const source = d.competence.windowSource === 'lifecycle' ? 'lifecycle windows' : `every ${windows[0]!.tasksSeen} tasks (this run logged no lifecycle windows)`;
    section.charts.push({
      id: 'competence-windows',
      title: `Competence over time: ${source}`,
      caption: 'Read left to right, top to bottom: specialization shows as columns turning from uniform to one bright cell.',
      spec: vl({
        data: { values },
        facet: { field: 'window', type: 'ordinal', sort: { field: 'order' }, title: null, header: { labelFontWeight: 600 } },
        columns: windows.length <= 6 ? windows.length : Math.ceil(windows.length / Math.ceil(windows.length / 6)),
        spec: { width: { step: 18 }, height: { step: 14 }, ...stripText(heatmapLayers(everyone, d.niches)) },
        resolve: { scale: { x: 'shared', y: 'shared' } },
      }),
    });
  }
  if (d.competence.windows.length > windows.length) {
    section.notes.push(`The run has ${d.competence.windows.length} windows; ${windows.length} evenly spaced ones are drawn (data.json has all).`);
  }
  section.tables.push({
    caption: d.run.finished ? 'Competence at the end' : `Competence${soFar(d.run)}`,
    headers: ['agent', ...d.niches],
    rows: live.map((a) => [a, ...d.niches.map((n) => fmt3(d.competence.final.find((c) => c.agentId === a && c.niche === n)?.competence))]),
  });
  return section;
}

/** Small multiples are too small for numbers in cells: keep the rects only. */
function stripText(spec: Record<string, unknown>): Record<string, unknown> {
  const layers = spec.layer as Record<string, unknown>[];
  const [rect] = layers;
  const x = (spec.encoding as { x: Record<string, unknown> }).x;
  return { ...spec, encoding: { ...(spec.encoding as object), x: { ...x, axis: { labelAngle: -45, labelFontSize: 9 } } }, layer: [rect] };
}

function pickWindows<T extends { window: number }>(windows: readonly T[]): T[] {
  if (windows.length <= MAX_MULTIPLES) return [...windows];
  const step = (windows.length - 1) / (MAX_MULTIPLES - 1);
  return [...new Set(Array.from({ length: MAX_MULTIPLES }, (_, i) => Math.round(i * step)))].map((i) => windows[i]!);
}
