import { checkEvent, type EventOf, type EventType, type RawEvent } from '../../store/events';

/** Graded tasks in the rolling mean of a variant comparison (over the whole stream, every niche). */
export const STREAM_WINDOW = 50;

/** What a run contributes to a comparison of variants, as far as its log has gone. */
export interface RunTrace {
  /** Graded tasks so far. */
  readonly graded: number;
  /** Mean reward over them, or null before the first. */
  readonly accuracy: number | null;
  /** Niche → mean reward over its graded tasks so far. */
  readonly perNiche: Readonly<Record<string, number>>;
  /** Rolling mean reward over the last `STREAM_WINDOW` graded tasks, after each graded task (index i = after task i + 1). */
  readonly rolling: Float32Array;
  /** Each graded task's id and reward (clamped to 0..1), in commit order: what paired comparisons pair on. */
  readonly taskIds: readonly string[];
  readonly rewards: Float64Array;
  /** Prompt plus completion tokens of every stage, from the events' token counts. */
  readonly tokens: number;
  readonly codream: { readonly sessions: number; readonly insights: number; readonly routed: number };
  /** Lifecycle decisions applied, by operator. */
  readonly lineage: Readonly<Record<string, number>>;
  /** A `run.finished` event was read. */
  readonly finished: boolean;
}

type Usage = Record<string, { calls: number; promptTokens: number; completionTokens: number }>;

/**
 * The fold of one run's log that a comparison of variants reads: rewards in commit order (for the
 * stream's rolling accuracy), tokens, CoDream and lifecycle counts. O(1) per event; the same fold
 * serves the written ablation report (over each run's events.jsonl) and the live one (as events arrive).
 */
export class RunTraceCollector {
  private rewards: Float64Array = new Float64Array(256);
  private readonly taskIds: string[] = [];
  private rolling: Float32Array = new Float32Array(256);
  private graded = 0;
  private rewardSum = 0;
  private windowSum = 0;
  private tokens = 0;
  private readonly codream = { sessions: 0, insights: 0, routed: 0 };
  private readonly lineage: Record<string, number> = {};
  private finished = false;
  private readonly niches = new Map<string, { n: number; sum: number }>();

  /** Fold one event (in log order); events it does not read, or malformed ones, are ignored. */
  add(raw: RawEvent): void {
    if (raw.type === 'run.finished') { this.finished = true; return; }
    if (raw.type === 'run.resumed') { this.finished = false; return; }
    switch (raw.type) {
      case 'task.graded': {
        const e = parse(raw, 'task.graded');
        if (!e) return;
        const reward = this.graded1(e.reward);
        this.taskIds.push(e.taskId);
        const n = this.niches.get(e.niche) ?? { n: 0, sum: 0 };
        n.n += 1;
        n.sum += reward;
        this.niches.set(e.niche, n);
        return;
      }
      case 'task.done': case 'evolve.applied': case 'lifecycle.usage': {
        const e = parse(raw, raw.type) as { tokens?: Usage } | null;
        if (e?.tokens) for (const u of Object.values(e.tokens)) this.tokens += u.promptTokens + u.completionTokens;
        return;
      }
      case 'codream.session': if (parse(raw, 'codream.session')) this.codream.sessions += 1; return;
      case 'codream.insight': if (parse(raw, 'codream.insight')) this.codream.insights += 1; return;
      case 'insight.routed': if (parse(raw, 'insight.routed')) this.codream.routed += 1; return;
      case 'lifecycle.decision': {
        const e = parse(raw, 'lifecycle.decision');
        if (e) this.lineage[e.operator] = (this.lineage[e.operator] ?? 0) + 1;
        return;
      }
      default:
    }
  }

  /** The trace as of the events added so far (the rolling series is a copy). */
  trace(): RunTrace {
    return {
      graded: this.graded, accuracy: this.graded ? round(this.rewardSum / this.graded) : null,
      perNiche: Object.fromEntries([...this.niches].map(([k, v]) => [k, round(v.sum / v.n)])),
      rolling: this.rolling.slice(0, this.graded), taskIds: this.taskIds.slice(), rewards: this.rewards.slice(0, this.graded), tokens: this.tokens, codream: { ...this.codream }, lineage: { ...this.lineage }, finished: this.finished,
    };
  }

  private graded1(r: number): number {
    const reward = Number.isFinite(r) ? Math.min(1, Math.max(0, r)) : 0;
    if (this.graded === this.rewards.length) {
      this.rewards = grow(this.rewards);
      this.rolling = grow(this.rolling);
    }
    this.rewards[this.graded] = reward;
    this.rewardSum += reward;
    this.windowSum += reward;
    if (this.graded >= STREAM_WINDOW) this.windowSum -= this.rewards[this.graded - STREAM_WINDOW]!;
    this.graded += 1;
    this.rolling[this.graded - 1] = this.windowSum / Math.min(this.graded, STREAM_WINDOW);
    return reward;
  }
}

function parse<T extends EventType>(raw: RawEvent, type: T): EventOf<T> | null {
  return checkEvent(type, raw);
}

function grow<T extends Float32Array | Float64Array>(a: T): T {
  const b = new (a.constructor as new (n: number) => T)(a.length * 2);
  b.set(a);
  return b;
}

const round = (x: number) => Math.round(x * 1e4) / 1e4;
