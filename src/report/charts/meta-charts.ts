import type { ReportData } from '../report-data';
import { fmt3, vl, type Section } from './section';

/** Meta-editing: the procedure over time — accuracy per segment, the edits on a timeline, each edited knob's values. */
export function metaSection(d: ReportData): Section {
  const m = d.meta;
  const section: Section = {
    id: 'procedure',
    heading: 'Procedure over time',
    intro: m.segments.length
      ? `The run in ${m.segments.length} segments; at each end the meta-editor could change the procedure. ${m.edits.filter((e) => e.accepted && e.changes.length).length} edits changed it, ${m.edits.filter((e) => !e.accepted).length} were rejected.`
      : 'This run had no meta-editing (the meta presets cut a run into segments and edit its procedure between them).',
    charts: [],
    tables: [],
    notes: [],
  };
  if (m.segments.length === 0) return section;
  section.charts.push({
    id: 'meta-segments', title: 'Accuracy per segment, by procedure version',
    caption: 'A segment that follows an edit and scores higher is evidence for the edit; compare with the no-meta control, which runs the same segments unedited.',
    spec: vl({
      data: { values: m.segments.map((s) => ({ ...s, label: `segment ${s.segment}`, version: `v${s.procedureVersion}` })) }, width: { step: 36 }, height: 200,
      mark: { type: 'bar' },
      encoding: {
        x: { field: 'label', type: 'nominal', sort: null, title: 'segment', axis: { labelAngle: -30 } },
        y: { field: 'accuracy', type: 'quantitative', title: 'mean reward', scale: { domain: [0, 1] } },
        color: { field: 'version', type: 'nominal', title: 'procedure version' },
        tooltip: [{ field: 'label' }, { field: 'fromTask' }, { field: 'toTask' }, { field: 'accuracy', format: '.3f' }, { field: 'version' }],
      },
    }),
  });
  const numeric = m.knobs.flatMap((k) => k.points.filter((p) => p.numeric !== null).map((p) => ({ knob: k.path, task: p.task, value: p.numeric })));
  if (numeric.length > 0) {
    section.charts.push({
      id: 'meta-knobs', title: 'Edited knobs over the run',
      caption: 'Each numeric knob the meta-editor changed, from its starting value through each accepted edit (a step at the task the edit took effect).',
      spec: vl({
        data: { values: numeric }, width: 520, height: 200,
        mark: { type: 'line', interpolate: 'step-after', point: true },
        encoding: {
          x: { field: 'task', type: 'quantitative', title: 'task number' },
          y: { field: 'value', type: 'quantitative', title: 'value' },
          color: { field: 'knob', type: 'nominal', title: 'knob' },
          tooltip: [{ field: 'knob' }, { field: 'task' }, { field: 'value' }],
        },
      }),
    });
  }
  if (m.knobs.length > 0) {
    section.tables.push({
      caption: 'Edited knobs over the run, every kind (lists and choices too): the value from each task on',
      headers: ['knob', 'values'],
      rows: m.knobs.map((k) => [k.path, k.points.map((p) => `${p.value} (task ${p.task}, v${p.version})`).join(' → ')]),
    });
  }
  section.tables.push({
    caption: 'Edits, in order', headers: ['segment', 'at task', 'outcome', 'changes', 'why'],
    rows: m.edits.map((e) => [
      e.segment, e.atTask, e.accepted ? (e.revertedTo !== null ? `reverted to v${e.revertedTo} → v${e.procedureVersion}` : `accepted → v${e.procedureVersion}`) : 'rejected',
      e.changes.map((c) => `${c.path}: ${JSON.stringify(c.from)} → ${JSON.stringify(c.to)}`).join('; ') || '–',
      e.accepted ? (e.rationale ?? '') : (e.reason ?? ''),
    ]),
  });
  section.tables.push({ caption: 'Segments', headers: ['segment', 'tasks', 'accuracy', 'procedure version'], rows: m.segments.map((s) => [s.segment, `${s.fromTask}–${s.toTask}`, s.accuracy === null ? '–' : fmt3(s.accuracy), s.procedureVersion]) });
  return section;
}
