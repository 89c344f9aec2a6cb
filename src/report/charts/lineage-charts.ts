import type { ReportData } from '../report-data';
import { layoutLineage, rosterChanged } from './lineage-layout';
import type { ColorScale } from './palette';
import { vl, type Section } from './section';

const SHAPES = {
  domain: ['seed', 'genesis', 'fork', 'merge', 'retired', 'persona', 'unknown'],
  range: ['circle', 'square', 'triangle-right', 'diamond', 'cross', 'triangle-up', 'circle'],
};

/** The shape scale restricted to the event kinds present (unknown kinds drawn as circles). */
function shapesFor(kinds: readonly string[]): { domain: string[]; range: string[] } {
  const present = [...SHAPES.domain.filter((k) => kinds.includes(k)), ...new Set(kinds.filter((k) => !SHAPES.domain.includes(k)))];
  return { domain: present, range: present.map((k) => SHAPES.range[SHAPES.domain.indexOf(k)] ?? 'circle') };
}

/** Lineage: the family tree over time, with the recorded reason of every change, and the decision log. */
export function lineageSection(d: ReportData, agents: ColorScale): Section {
  const section: Section = {
    id: 'lineage',
    heading: 'Lineage',
    intro: 'How the roster changed: genesis (a new agent), fork (a copy of a parent), merge (two parents into one), prune (retirement), specialize (a persona rewrite).',
    charts: [],
    tables: [],
    notes: [],
  };
  const counts = new Map<string, number>();
  for (const a of d.agents) counts.set(a.origin, (counts.get(a.origin) ?? 0) + 1);
  section.figures = [
    ...[...counts].map(([origin, n]) => ({ label: `${origin} agents`, value: String(n) })),
    { label: 'retired', value: String(d.lineage.retirements.length) },
    { label: 'persona rewrites', value: String(d.lineage.personas.length) },
  ];
  if (!rosterChanged(d)) {
    section.notes.push(`The roster did not change: ${d.agents.length} seed agent${d.agents.length === 1 ? '' : 's'}, no lifecycle decisions recorded (no genesis, fork, merge, prune or specialize events in this run).`);
  } else {
    const layout = layoutLineage(d);
    const y = { field: 'agentId', type: 'nominal', title: 'agent', scale: { domain: layout.order, padding: 0.5 } };
    const x = { type: 'quantitative', title: 'tasks finished', scale: { domain: [0, Math.max(1, d.run.tasksDone)], nice: false } };
    const color = { field: 'agentId', type: 'nominal', title: 'agent', scale: { domain: agents.domain, range: agents.range }, legend: null };
    section.charts.push({
      id: 'lineage-tree',
      title: 'Family tree over time',
      caption: 'Each line is one agent\'s life; a connector drops from a parent to the child it forked or merged into, and a cross marks a retirement — hover any mark for the recorded reason.',
      spec: vl({
        width: 680,
        height: { step: 26 },
        layer: [
          {
            data: { values: layout.lifelines },
            mark: { type: 'rule', strokeWidth: 5, strokeCap: 'round', opacity: 0.85 },
            encoding: {
              y, x: { ...x, field: 'start' }, x2: { field: 'end' }, color,
              tooltip: [{ field: 'agentId', title: 'agent' }, { field: 'origin' }, { field: 'start', title: 'spawned after' }, { field: 'end', title: 'until' }],
            },
          },
          {
            data: { values: layout.edges },
            mark: { type: 'rule', color: '#666', strokeDash: [3, 2] },
            encoding: {
              x: { ...x, field: 'at' },
              y: { ...y, field: 'parent' },
              y2: { field: 'child' },
              tooltip: [{ field: 'origin' }, { field: 'parent' }, { field: 'child' }, { field: 'reason' }],
            },
          },
          {
            data: { values: layout.marks },
            mark: { type: 'point', filled: true, size: 110, stroke: 'black', strokeWidth: 0.7 },
            encoding: {
              y, x: { ...x, field: 'at' }, color,
              shape: { field: 'kind', type: 'nominal', title: 'event', scale: shapesFor(layout.marks.map((m) => m.kind)) },
              tooltip: [{ field: 'agentId', title: 'agent' }, { field: 'kind', title: 'event' }, { field: 'at', title: 'after tasks' }, { field: 'reason' }],
            },
          },
        ],
      }),
    });
  }
  if (d.lineage.decisions.length > 0) {
    section.tables.push({
      caption: 'Lifecycle decisions',
      headers: ['window', 'after tasks', 'operator', 'agents', 'reason'],
      rows: d.lineage.decisions.map((x) => [x.window ?? '–', x.tasksSeen, x.operator, x.agents.join(', '), x.reason]),
    });
  }
  section.tables.push({
    caption: 'Roster',
    headers: ['agent', 'origin', 'parents', 'spawned after', 'retired after', 'reason'],
    rows: d.agents.map((a) => [
      a.agentId, a.origin, a.parents.join(' + ') || '–', a.spawnedAt, a.retiredAt ?? '–',
      [a.reason, a.retiredReason ? `retired: ${a.retiredReason}${a.successor ? ` → ${a.successor}` : ''}` : null].filter(Boolean).join('; ') || '–',
    ]),
  });
  if (d.lineage.personas.length > 0) {
    section.tables.push({
      caption: 'Persona rewrites (specialize)',
      headers: ['agent', 'after tasks', 'reason', 'new persona'],
      rows: d.lineage.personas.map((p) => [p.agentId, p.tasksSeen, p.reason, p.persona]),
    });
  }
  return section;
}
