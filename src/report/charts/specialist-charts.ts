import type { ReportData } from '../report-data';
import type { ColorScale } from './palette';
import { fmt3, soFar, vl, type Section } from './section';

const NONE = 'none';

/** Who anchors each niche (argmax competence among exposed agents), window by window. */
export function specialistSection(d: ReportData, agents: ColorScale): Section {
  const lifecycle = d.competence.windowSource === 'lifecycle';
  const section: Section = {
    id: 'specialists',
    heading: 'Specialists per niche',
    intro: `The anchor of a niche in a window is the agent with the highest competence there among agents that worked in it.${lifecycle
      ? ' ★ marks an anchor the lifecycle also recorded as the niche\'s specialist (it requires a lead margin).' : ''}`,
    charts: [],
    tables: [],
    notes: [],
  };
  if (!d.specialists.some((s) => s.agentId !== null)) {
    section.notes.push('No niche had an anchor in any window: no agent has a competence record.');
    return section;
  }
  const values = d.specialists.map((s) => ({
    ...s,
    agentId: s.agentId ?? NONE,
    label: `${s.tasksSeen}`,
    short: `${s.agentId?.replace(/^agent-/, '') ?? ''}${s.agentId && s.recognized === s.agentId ? '★' : ''}`,
    specialist: s.recognized ?? (lifecycle ? 'none recorded' : 'no lifecycle'),
  }));
  const domain = [...agents.domain, NONE];
  const range = [...agents.range, '#e8e8e8'];
  const shown = domain.filter((a) => values.some((v) => v.agentId === a));
  const windowOrder = [...new Set(d.specialists.map((s) => `${s.tasksSeen}`))];
  section.charts.push({
    id: 'specialists',
    title: `Who anchors each niche over time${soFar(d.run)}`,
    caption: 'A row that settles into one colour is a niche with a stable specialist; a row that keeps changing colour never found one.',
    spec: vl({
      data: { values },
      width: { step: Math.max(26, Math.min(48, Math.floor(640 / Math.max(1, windowOrder.length)))) },
      height: { step: 26 },
      encoding: {
        x: { field: 'label', type: 'ordinal', sort: windowOrder, title: lifecycle ? 'tasks finished (lifecycle window)' : 'tasks finished (window end)' },
        y: { field: 'niche', type: 'nominal', sort: d.niches, title: 'niche' },
      },
      layer: [
        {
          mark: { type: 'rect', stroke: 'white', strokeWidth: 1 },
          encoding: {
            color: { field: 'agentId', type: 'nominal', title: 'anchor', scale: { domain, range }, legend: { values: shown } },
            tooltip: [
              { field: 'niche' }, { field: 'agentId', title: 'anchor' }, { field: 'competence', format: '.3f' },
              { field: 'specialist', title: 'lifecycle specialist' }, { field: 'tasksSeen', title: 'after tasks' },
            ],
          },
        },
        { mark: { type: 'text', fontSize: 9, color: 'white' }, encoding: { text: { field: 'short' } } },
      ],
    }),
  });
  section.tables.push({
    caption: 'Anchors at the end',
    headers: ['niche', 'anchor', 'competence', 'windows anchored (of all)', 'anchor changes', ...(lifecycle ? ['lifecycle specialist'] : [])],
    rows: anchorTable(d).map((r, i) => (lifecycle ? [...r, d.specialists.filter((s) => s.niche === d.niches[i]).at(-1)?.recognized ?? '–'] : r)),
  });
  return section;
}

/** Per niche: the final anchor, how many windows it held the niche, and how often the anchor changed. */
export function anchorTable(d: ReportData): (string | number)[][] {
  return d.niches.map((niche) => {
    const series = d.specialists.filter((s) => s.niche === niche);
    const last = series.at(-1);
    const held = last?.agentId ? series.filter((s) => s.agentId === last.agentId).length : 0;
    let changes = 0;
    for (let i = 1; i < series.length; i++) if (series[i]!.agentId !== series[i - 1]!.agentId && series[i - 1]!.agentId !== null) changes++;
    return [niche, last?.agentId ?? '–', fmt3(last?.competence), `${held} / ${series.length}`, changes];
  });
}
