import type { ReportData } from '../report-data';
import { LEVEL_ORDER, type ColorScale } from './palette';
import { soFar, vl, type Section } from './section';

const META = '(meta pool)';

/** CoDream: who taught whom (from × to, by insight level), and what flowed into which niche. */
export function codreamSection(d: ReportData, agents: ColorScale): Section {
  const c = d.codream;
  const sessions = c.sessions.reduce((a, s) => a + s.count, 0);
  const insights = Object.values(c.insightsByLevel).reduce((a, n) => a + n, 0);
  const section: Section = {
    id: 'codream',
    heading: 'CoDream flows',
    intro: 'After a failure or a disagreement the team dreams together; the insights it keeps are routed to agents weaker in the niche (insight.routed events).',
    charts: [],
    tables: [],
    notes: [],
  };
  if (sessions === 0 && c.routed === 0) {
    section.notes.push('No CoDream in this run: no codream.session or insight.routed events (the variant has no population level, or it was off).');
    return section;
  }
  section.figures = [
    { label: 'sessions', value: String(sessions) },
    { label: 'insights kept', value: String(insights) },
    { label: 'insights routed', value: String(c.routed) },
  ];
  const levels = [...LEVEL_ORDER, ...Object.keys(c.insightsByLevel).filter((l) => !(LEVEL_ORDER as readonly string[]).includes(l))];
  if (c.flows.length === 0) {
    section.notes.push('CoDream sessions ran, but no insight was routed to another agent.');
  } else {
    const present = new Set(c.flows.flatMap((f) => [f.from, f.to]));
    const order = agents.domain.filter((a) => present.has(a));
    section.charts.push({
      id: 'codream-matrix',
      title: `Who taught whom (insights routed, by level)${soFar(d.run)}`,
      caption: 'Read a row as what one agent taught and a column as what one agent learned: heavy rows are the pool\'s teachers, heavy columns its learners (an insight with several authors counts once per author).',
      spec: vl({
        data: { values: c.flows },
        transform: [{ aggregate: [{ op: 'sum', field: 'count', as: 'insights' }], groupby: ['from', 'to', 'level'] }],
        facet: { column: { field: 'level', type: 'nominal', sort: levels, title: 'insight level' } },
        spec: {
          width: { step: 26 },
          height: { step: 26 },
          mark: { type: 'rect', stroke: 'white' },
          encoding: {
            x: { field: 'to', type: 'nominal', title: 'to (learner)', scale: { domain: order } },
            y: { field: 'from', type: 'nominal', title: 'from (author)', scale: { domain: order } },
            color: { field: 'insights', type: 'quantitative', title: 'insights', scale: { scheme: 'oranges' } },
            tooltip: [{ field: 'from' }, { field: 'to' }, { field: 'level' }, { field: 'insights' }],
          },
        },
        resolve: { scale: { x: 'shared', y: 'shared' } },
      }),
    });
    section.charts.push({
      id: 'codream-niches',
      title: 'Routed insights per niche and level',
      caption: 'Niches with long bars are where the pool needed the most help; the colours show how general the routed lessons were.',
      spec: vl({
        data: { values: c.routedByNiche.map((f) => ({ ...f, niche: f.niche ?? META })) },
        mark: { type: 'bar' },
        width: 420,
        height: { step: 24 },
        encoding: {
          y: { field: 'niche', type: 'nominal', sort: [...d.niches, META], title: 'niche' },
          x: { aggregate: 'sum', field: 'count', type: 'quantitative', title: 'insights routed' },
          color: { field: 'level', type: 'nominal', sort: levels, title: 'level', scale: { domain: levels, scheme: 'tableau10' } },
          tooltip: [{ field: 'niche' }, { field: 'level' }, { aggregate: 'sum', field: 'count', title: 'routed' }],
        },
      }),
    });
  }
  section.tables.push({
    caption: 'Sessions per niche and trigger',
    headers: ['niche', 'trigger', 'sessions'],
    rows: [...c.sessions].sort((a, b) => a.niche.localeCompare(b.niche) || a.trigger.localeCompare(b.trigger)).map((s) => [s.niche, s.trigger, s.count]),
  });
  section.tables.push({
    caption: 'Insights kept per level',
    headers: ['level', 'insights'],
    rows: levels.filter((l) => c.insightsByLevel[l] !== undefined).map((l) => [l, c.insightsByLevel[l]!]),
  });
  return section;
}
