import type { ReportData } from '../report-data';
import { fmtCount, SI_AXIS, vl, type Section } from './section';

/** Tokens per stage, plus wall time and throughput. */
export function costSection(d: ReportData): Section {
  const c = d.cost;
  const total = c.stages.reduce((acc, s) => ({ calls: acc.calls + s.calls, tokens: acc.tokens + s.promptTokens + s.completionTokens }), { calls: 0, tokens: 0 });
  const section: Section = {
    id: 'cost',
    heading: 'Cost',
    intro: 'Tokens spent per stage of the loop (prompt and completion), and how long the run took.',
    charts: [],
    tables: [],
    notes: [],
    figures: [
      { label: 'total tokens', value: fmtCount(total.tokens) },
      { label: 'model calls', value: fmtCount(total.calls) },
      { label: 'wall time', value: c.wallSeconds === null ? 'unknown' : `${c.wallSeconds.toFixed(2)} s` },
      { label: 'tasks / s', value: c.tasksPerSecond === null ? 'unknown' : String(c.tasksPerSecond) },
    ],
  };
  const truncated = c.stages.filter((s) => s.truncated);
  if (truncated.length > 0) {
    const n = truncated.reduce((a, s) => a + s.truncated!, 0);
    section.figures?.push({ label: 'truncated replies', value: fmtCount(n) });
    section.notes.push(`${n} repl${n === 1 ? 'y was' : 'ies were'} cut off by the token limit with no answer (${truncated.map((s) => `${s.stage} ${s.truncated}`).join(', ')}); the scenario's model.onTruncated decided their fate (docs/backends.md, "Truncated replies").`);
  }
  if (c.source === 'events') {
    section.notes.push('This run has no summary in run.json (it did not finish): tokens are counted from the event log, which records solve attempts and CoDream sessions only; wall time is unknown.');
  }
  const values = c.stages.flatMap((s) => [
    { stage: s.stage, kind: 'prompt', tokens: s.promptTokens, calls: s.calls },
    { stage: s.stage, kind: 'completion', tokens: s.completionTokens, calls: s.calls },
  ]);
  if (total.tokens === 0) {
    section.notes.push('No tokens were recorded for this run.');
  } else {
    section.charts.push({
      id: 'cost-stages',
      title: 'Tokens per stage',
      caption: 'Compare the learning stages (reflect, leadlearn, codream, lifecycle) with solve: that is the overhead of evolving while solving.',
      // Each bar's total is written at its end: a stage a thousand times smaller than solve (lifecycle) is a sliver, but its figure is there.
      spec: vl({
        width: 420,
        height: { step: 28 },
        encoding: { y: { field: 'stage', type: 'nominal', sort: c.stages.map((s) => s.stage), title: 'stage' } },
        layer: [
          {
            data: { values }, mark: { type: 'bar' },
            encoding: {
              x: { field: 'tokens', type: 'quantitative', stack: 'zero', title: 'tokens', axis: SI_AXIS, scale: { domainMax: Math.max(...c.stages.map((s) => s.promptTokens + s.completionTokens)) * 1.18 } },
              color: { field: 'kind', type: 'nominal', title: 'tokens', scale: { domain: ['prompt', 'completion'], range: ['#9ecae9', '#3182bd'] } },
              tooltip: [{ field: 'stage' }, { field: 'kind' }, { field: 'tokens', format: ',' }, { field: 'calls' }],
            },
          },
          {
            data: { values: c.stages.filter((s) => s.calls > 0).map((s) => ({ stage: s.stage, tokens: s.promptTokens + s.completionTokens, label: fmtCount(s.promptTokens + s.completionTokens) })) },
            mark: { type: 'text', align: 'left', dx: 4, fontSize: 10, color: '#333' },
            encoding: { x: { field: 'tokens', type: 'quantitative' }, text: { field: 'label' } },
          },
        ],
      }),
    });
  }
  const absent = c.stages.filter((s) => s.calls === 0).map((s) => s.stage);
  if (absent.length > 0 && total.tokens > 0) section.notes.push(`No calls in stage${absent.length > 1 ? 's' : ''} ${absent.join(', ')} in this run.`);
  section.tables.push({
    caption: 'Tokens per stage',
    headers: ['stage', 'calls', 'prompt tokens', 'completion tokens'],
    rows: [
      ...c.stages.map((s) => [s.stage, s.calls, s.promptTokens, s.completionTokens]),
      ['total', total.calls, c.stages.reduce((a, s) => a + s.promptTokens, 0), c.stages.reduce((a, s) => a + s.completionTokens, 0)],
    ],
  });
  return section;
}
