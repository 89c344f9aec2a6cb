import type { ReportData } from '../report-data';
import type { EventOf } from '../../store/events';

/**
 * Meta-editing over the run (the `meta` presets): each segment's accuracy, each edit on the
 * timeline, and each knob's value from the start through every accepted edit.
 */
export class MetaCollector {
  private readonly segments: ReportData['meta']['segments'] = [];
  private readonly edits: ReportData['meta']['edits'] = [];
  private readonly values = new Map<string, { task: number; value: unknown; version: number }[]>();
  private lastTask = 0;

  report(e: EventOf<'meta.report'>): void {
    this.segments.push({ segment: e.segment, fromTask: e.fromTask, toTask: e.toTask, accuracy: e.accuracy ?? null, procedureVersion: e.procedureVersion });
    this.lastTask = e.toTask + 1;
  }

  edit(e: EventOf<'meta.edit'>): void {
    const changes = (e.changes ?? []).map((c) => ({ path: c.path, from: c.from, to: c.to }));
    this.edits.push({
      segment: e.segment, atTask: this.lastTask, accepted: e.accepted, procedureVersion: e.procedureVersion, changes,
      reason: e.reason ?? null, rationale: e.rationale ?? null, revertedTo: e.revertedTo ?? null,
    });
    if (!e.accepted) return;
    for (const c of changes) {
      const series = this.values.get(c.path) ?? [{ task: 0, value: c.from, version: 0 }];
      series.push({ task: this.lastTask, value: c.to, version: e.procedureVersion });
      this.values.set(c.path, series);
    }
  }

  finish(): ReportData['meta'] {
    return {
      segments: this.segments,
      edits: this.edits,
      knobs: [...this.values].sort(([a], [b]) => a.localeCompare(b)).map(([path, points]) => ({ path, points: points.map((p) => ({ task: p.task, value: JSON.stringify(p.value), numeric: typeof p.value === 'number' ? p.value : null, version: p.version })) })),
    };
  }
}
