import type { CompetenceCell, CompetenceWindow, ReportData, SpecialistEntry } from '../report-data';
import type { EventOf } from '../../store/events';

/** Windows the report makes up when a run logged no lifecycle windows. */
export const SYNTHETIC_WINDOWS = 10;

type Cells = Map<string, Map<string, { competence: number; exposure: number }>>;

/**
 * Competence per agent × niche over time, and who anchors each niche. Uses the run's
 * `lifecycle.window` snapshots when it has them; otherwise snapshots the latest
 * `competence.updated` values every `plannedTasks / 10` finished tasks.
 */
export class CompetenceCollector {
  private readonly current: Cells = new Map();
  private readonly alive = new Set<string>();
  private readonly lifecycle: { window: CompetenceWindow; specialists: Record<string, string | null> | undefined }[] = [];
  private readonly synthetic: CompetenceWindow[] = [];
  private windowSize = 1;

  /** Set the synthetic window size from the planned task count. */
  plan(plannedTasks: number): void {
    this.windowSize = Math.max(1, Math.ceil(plannedTasks / SYNTHETIC_WINDOWS));
  }

  spawned(agentId: string): void {
    this.alive.add(agentId);
    if (!this.current.has(agentId)) this.current.set(agentId, new Map());
  }

  retired(agentId: string): void {
    this.alive.delete(agentId);
  }

  updated(e: EventOf<'competence.updated'>): void {
    if (!this.current.has(e.agentId)) this.spawned(e.agentId);
    this.current.get(e.agentId)!.set(e.niche, { competence: e.competence, exposure: e.exposure ?? 0 });
  }

  lifecycleWindow(e: EventOf<'lifecycle.window'>, tasksDone: number): void {
    const cells: CompetenceCell[] = [];
    for (const r of e.roster) {
      for (const [niche, competence] of Object.entries(r.competence)) {
        cells.push({ agentId: r.agentId, niche, competence, exposure: r.exposure?.[niche] ?? 0 });
      }
    }
    // Stamped with the tasks finished in the log (not the event's own tasksSeen) so every chart shares one time axis.
    this.lifecycle.push({ window: { window: e.window, tasksSeen: tasksDone, cells }, specialists: e.specialists });
  }

  /** Called after each finished task with the count so far. */
  taskDone(tasksDone: number): void {
    if (tasksDone % this.windowSize === 0) {
      this.synthetic.push({ window: this.synthetic.length + 1, tasksSeen: tasksDone, cells: this.snapshot() });
    }
  }

  /** The competence section and the specialists series. */
  finish(niches: readonly string[], tasksDone: number): { competence: ReportData['competence']; specialists: SpecialistEntry[] } {
    const final = this.snapshot();
    const fromLifecycle = this.lifecycle.length > 0;
    const windows = fromLifecycle ? this.lifecycle.map((l) => l.window) : [...this.synthetic];
    // A run that stopped between two windows still shows where it ended.
    if (!fromLifecycle && (windows.length === 0 || windows.at(-1)!.tasksSeen < tasksDone)) {
      windows.push({ window: windows.length + 1, tasksSeen: tasksDone, cells: final });
    }
    const specialists: SpecialistEntry[] = [];
    windows.forEach((w, i) => {
      const logged = fromLifecycle ? this.lifecycle[i]!.specialists : undefined;
      for (const niche of niches) {
        const best = anchorOf(w.cells, niche);
        const recognized = logged ? (logged[niche] ?? null) : null;
        specialists.push({ window: w.window, tasksSeen: w.tasksSeen, niche, agentId: best?.agentId ?? null, competence: best?.competence ?? null, recognized });
      }
    });
    return { competence: { windowSource: fromLifecycle ? 'lifecycle' : 'synthetic', windows, final }, specialists };
  }

  private snapshot(): CompetenceCell[] {
    const cells: CompetenceCell[] = [];
    for (const agentId of this.alive) {
      for (const [niche, v] of this.current.get(agentId) ?? []) cells.push({ agentId, niche, ...v });
    }
    return cells;
  }
}

/** The anchor of a niche: highest competence among agents with exposure to it (ties: more exposure). */
export function anchorOf(cells: readonly CompetenceCell[], niche: string): CompetenceCell | null {
  let best: CompetenceCell | null = null;
  for (const c of cells) {
    if (c.niche !== niche || c.exposure <= 0) continue;
    if (!best || c.competence > best.competence || (c.competence === best.competence && c.exposure > best.exposure)) best = c;
  }
  return best;
}
