import type { ReportData } from '../report-data';
import type { EventOf } from '../../store/events';

/** Tasks per niche in the rolling mean. */
export const ROLLING_WINDOW = 25;
/** Points per niche kept in the rolling series (thinned evenly; the last point is always kept). */
const MAX_POINTS = 300;

interface NicheState {
  tasks: number;
  rewardSum: number;
  correct: number;
  ring: number[];
  ringSum: number;
  points: { task: number; rolling: number }[];
}

/**
 * Graded tasks in commit order: accuracy overall and per niche, the rolling mean reward of each
 * niche against the global task number, and where the stream's blocks begin.
 */
export class AccuracyCollector {
  private readonly niches = new Map<string, NicheState>();
  private readonly blockOf = new Map<string, number>();
  private readonly blocks: ReportData['accuracy']['blocks'] = [];
  private lastBlock: number | null = null;
  private graded = 0;
  private rewardSum = 0;
  private correct = 0;

  started(e: EventOf<'task.started'>): void {
    if (e.block !== undefined) this.blockOf.set(e.taskId, e.block);
  }

  gradedTask(e: EventOf<'task.graded'>): void {
    this.graded += 1;
    const block = this.blockOf.get(e.taskId);
    this.blockOf.delete(e.taskId);
    if (block !== undefined) {
      if (this.lastBlock !== null && block !== this.lastBlock) this.blocks.push({ task: this.graded, block });
      this.lastBlock = block;
    }
    const reward = clamp01(e.reward);
    this.rewardSum += reward;
    if (e.correct) this.correct += 1;
    const s = this.niches.get(e.niche) ?? { tasks: 0, rewardSum: 0, correct: 0, ring: [], ringSum: 0, points: [] };
    s.tasks += 1;
    s.rewardSum += reward;
    if (e.correct) s.correct += 1;
    s.ring.push(reward);
    s.ringSum += reward;
    if (s.ring.length > ROLLING_WINDOW) s.ringSum -= s.ring.shift()!;
    s.points.push({ task: this.graded, rolling: clamp01(s.ringSum / s.ring.length) });
    this.niches.set(e.niche, s);
  }

  /** Niches in the order their first task was graded. */
  nicheOrder(): string[] {
    return [...this.niches.keys()];
  }

  finish(niches: readonly string[]): ReportData['accuracy'] {
    const perNiche: ReportData['accuracy']['perNiche'] = [];
    const series: ReportData['accuracy']['series'] = [];
    for (const niche of niches) {
      const s = this.niches.get(niche);
      if (!s) continue;
      perNiche.push({ niche, tasks: s.tasks, mean: round(s.rewardSum / s.tasks), correct: s.correct });
      for (const p of thin(s.points)) series.push({ niche, task: p.task, rolling: round(p.rolling) });
    }
    return {
      overall: this.graded ? round(this.rewardSum / this.graded) : null,
      exactRate: this.graded ? round(this.correct / this.graded) : null,
      perNiche,
      rollingWindow: ROLLING_WINDOW,
      series,
      blocks: this.blocks,
    };
  }
}

/** Structure choices per niche, counted in bins of `binSize` tasks (in the order tasks were started). */
export class StructureCollector {
  private readonly counts = new Map<string, number>();
  private readonly totals = new Map<string, Map<string, number>>();
  private chosen = 0;
  private binSize = 1;

  plan(binSize: number): void {
    this.binSize = Math.max(1, binSize);
  }

  chose(e: EventOf<'structure.chosen'>): void {
    const bin = Math.floor(this.chosen / this.binSize);
    this.chosen += 1;
    const key = `${e.niche}\u0000${bin}\u0000${e.structure}`;
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
    const t = this.totals.get(e.niche) ?? new Map<string, number>();
    t.set(e.structure, (t.get(e.structure) ?? 0) + 1);
    this.totals.set(e.niche, t);
  }

  finish(): ReportData['structures'] {
    const bins = [...this.counts].map(([key, count]) => {
      const [niche, b, structure] = key.split('\u0000') as [string, string, string];
      const bin = Number(b);
      return { niche, bin, start: bin * this.binSize, end: (bin + 1) * this.binSize, structure, count };
    });
    const totals = Object.fromEntries([...this.totals].map(([n, m]) => [n, Object.fromEntries([...m].sort(([a], [b]) => a.localeCompare(b)))]));
    return { binSize: this.binSize, bins, totals };
  }
}

function thin<T>(points: readonly T[]): T[] {
  if (points.length <= MAX_POINTS) return [...points];
  const step = points.length / MAX_POINTS;
  const out: T[] = [];
  for (let i = 0; i < MAX_POINTS - 1; i++) out.push(points[Math.floor(i * step)]!);
  out.push(points.at(-1)!);
  return out;
}

const clamp01 = (x: number) => (Number.isFinite(x) ? Math.min(1, Math.max(0, x)) : 0);
const round = (x: number) => Math.round(x * 1e4) / 1e4;
