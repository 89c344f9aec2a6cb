import { hash32 } from '../../core/hash';
import type { LoggedEvent, RunEvent } from '../../store/events';

type Ev = RunEvent | LoggedEvent;
type Tokens = Record<string, { calls: number; promptTokens: number; completionTokens: number }>;

/** Accuracy and task count. */
export interface Tally {
  readonly tasks: number;
  /** Mean team reward over the graded tasks; null when none was graded. */
  readonly accuracy: number | null;
}

/**
 * What the harness tells the meta-editor about one segment, built from the segment's events alone.
 * Numbers, names and ids only: no task text, answer, gold answer, hidden test or grader detail.
 */
export interface SegmentReport {
  readonly segment: number;
  /** The procedure version the segment ran under. */
  readonly procedureVersion: number;
  /** Stream positions of its first and last committed task. */
  readonly fromTask: number;
  readonly toTask: number;
  readonly overall: Tally;
  readonly perNiche: Readonly<Record<string, Tally>>;
  /** Earlier segments' overall and per-niche accuracy, oldest first (the trend). */
  readonly trend: readonly {
    readonly segment: number;
    readonly accuracy: number | null;
    readonly perNiche: Readonly<Record<string, number | null>>;
    readonly procedureVersion: number;
  }[];
  /** Calls and tokens by stage. */
  readonly cost: Readonly<Record<string, { calls: number; promptTokens: number; completionTokens: number }>>;
  readonly codream: {
    readonly sessions: number;
    readonly byTrigger: Readonly<Record<string, number>>;
    readonly insights: number;
    /** Insights per session. */
    readonly yieldPerSession: number | null;
    /** Deliveries, and how many were new to their receiver (stored, not a duplicate). */
    readonly routed: number;
    readonly stored: number;
  };
  /** Lifecycle decisions applied, by operator. */
  readonly lifecycle: Readonly<Record<string, number>>;
  /** Per niche, per structure: tasks and accuracy. */
  readonly structures: Readonly<Record<string, Readonly<Record<string, Tally>>>>;
  /** The specialist of each niche at the segment's last lifecycle window (null: none), and how many hold stably. */
  readonly specialists: Readonly<Record<string, string | null>>;
  readonly stableSpecialists: number;
  /** Tasks that failed for infrastructure reasons, by stage; evolve stages that fell back, by stage. */
  readonly failures: Readonly<Record<string, number>>;
  readonly fallbacks: Readonly<Record<string, number>>;
  /** What the staleness policy did with lessons and insights. */
  readonly staleness: { readonly dropped: number; readonly patched: number };
}

const mean = (xs: readonly number[]): number | null => (xs.length ? Math.round((xs.reduce((a, b) => a + b, 0) / xs.length) * 1e4) / 1e4 : null);
const bump = (m: Record<string, number>, k: string, by = 1) => { m[k] = (m[k] ?? 0) + by; };

/** Build a segment's report from its events (in log order) and the earlier segments' reports. */
export function segmentReport(events: readonly Ev[], at: { segment: number; procedureVersion: number; fromTask: number; toTask: number }, earlier: readonly SegmentReport[]): SegmentReport {
  const niche = new Map<string, string>();
  const structure = new Map<string, string>();
  const rewards: number[] = [];
  const byNiche = new Map<string, number[]>();
  const byStructure = new Map<string, Map<string, number[]>>();
  const cost: Record<string, { calls: number; promptTokens: number; completionTokens: number }> = {};
  const byTrigger: Record<string, number> = {};
  const lifecycle: Record<string, number> = {};
  const failures: Record<string, number> = {};
  const fallbacks: Record<string, number> = {};
  let sessions = 0;
  let insights = 0;
  let routed = 0;
  let stored = 0;
  let dropped = 0;
  let patched = 0;
  let specialists: Record<string, string | null> = {};
  let stable = 0;
  const addCost = (t: Tokens | undefined) => {
    for (const [stage, u] of Object.entries(t ?? {})) {
      const c = (cost[stage] ??= { calls: 0, promptTokens: 0, completionTokens: 0 });
      c.calls += u.calls;
      c.promptTokens += u.promptTokens;
      c.completionTokens += u.completionTokens;
    }
  };
  for (const e of events) {
    switch (e.type) {
      case 'task.started': niche.set(e.taskId, e.niche); break;
      case 'structure.chosen': structure.set(e.taskId, e.structure); break;
      case 'task.graded': {
        const r = e.reward;
        const n = e.niche;
        rewards.push(r);
        (byNiche.get(n) ?? byNiche.set(n, []).get(n)!).push(r);
        const s = structure.get(e.taskId);
        if (s) {
          const m = byStructure.get(n) ?? byStructure.set(n, new Map()).get(n)!;
          (m.get(s) ?? m.set(s, []).get(s)!).push(r);
        }
        break;
      }
      case 'task.failed': bump(failures, e.stage); break;
      case 'task.done': case 'evolve.applied': case 'lifecycle.usage': addCost(e.tokens); break;
      case 'codream.session': sessions++; insights += e.insights ?? 0; bump(byTrigger, e.trigger); break;
      case 'insight.routed': routed++; if (e.stored) stored++; break;
      case 'lifecycle.decision': bump(lifecycle, e.operator); break;
      case 'lifecycle.window': {
        specialists = { ...e.specialists };
        // `stable` maps each niche to its stable specialist: their count, as the run's summary counts them.
        stable = Object.keys(e.stable).length;
        break;
      }
      case 'stage.fallback': bump(fallbacks, e.stage); break;
      case 'evolve.dropped': dropped++; break;
      case 'evolve.patched': patched++; break;
      default: break;
    }
  }
  const tally = (xs: readonly number[]): Tally => ({ tasks: xs.length, accuracy: mean(xs) });
  return {
    ...at,
    overall: tally(rewards),
    perNiche: Object.fromEntries([...byNiche].sort(([a], [b]) => a.localeCompare(b)).map(([n, xs]) => [n, tally(xs)])),
    trend: earlier.map((r) => ({
      segment: r.segment, accuracy: r.overall.accuracy,
      perNiche: Object.fromEntries(Object.entries(r.perNiche).map(([n, t]) => [n, t.accuracy])), procedureVersion: r.procedureVersion,
    })),
    cost,
    codream: { sessions, byTrigger, insights, yieldPerSession: sessions ? Math.round((insights / sessions) * 100) / 100 : null, routed, stored },
    lifecycle,
    structures: Object.fromEntries([...byStructure].sort(([a], [b]) => a.localeCompare(b)).map(([n, m]) => [n, Object.fromEntries([...m].sort(([a], [b]) => a.localeCompare(b)).map(([s, xs]) => [s, tally(xs)]))])),
    specialists,
    stableSpecialists: stable,
    failures,
    fallbacks,
    staleness: { dropped, patched },
  };
}

/** A short digest of a report, for the `meta.report` event (the report itself is in the meta call's prompt). */
export function reportDigest(r: SegmentReport): { readonly hash: string; readonly accuracy: number | null; readonly tasks: number; readonly sessions: number } {
  return { hash: hash32(JSON.stringify(r)).toString(36), accuracy: r.overall.accuracy, tasks: r.overall.tasks, sessions: r.codream.sessions };
}
