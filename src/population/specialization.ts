import { competenceOf } from '../individual/competence';
import type { AgentView } from '../individual/agent-view';

/**
 * Tolerance for threshold tests: competences are EWMA floats, so `0.7 − 0.6` must count as a lead
 * of 0.1. Every "≥ threshold" in the lifecycle goes through `meetsThreshold`.
 */
export const THRESHOLD_EPSILON = 1e-9;

/** `value ≥ threshold`, forgiving float rounding of at most `THRESHOLD_EPSILON`. */
export function meetsThreshold(value: number, threshold: number): boolean {
  return value >= threshold - THRESHOLD_EPSILON;
}

/** One window's specialist per niche (`null`: the niche has none). */
export type SpecialistMap = Readonly<Record<string, string | null>>;

/** The leader of a niche and its lead over the runner-up. */
export interface NicheLead {
  readonly agentId: string;
  readonly competence: number;
  /** Competence of the best other agent (the leader's own competence minus `lead`). */
  readonly runnerUp: number;
  /** Leader minus runner-up, ≥ 0; 0 for a tie or a roster of one. */
  readonly lead: number;
  readonly exposure: number;
}

/**
 * Leader of `niche` and its lead, or null for an empty roster. Competence of an unseen niche is
 * `c0`. Tie rule: among agents with equal competence the earliest in roster (spawn) order leads,
 * so reports and lifecycle decisions are deterministic. (Team assembly breaks anchor ties at
 * random instead; this is the reporting view.) A roster of one has lead 0: specialization is
 * relative to the pool.
 */
export function nicheLead(roster: readonly AgentView[], niche: string, c0: number): NicheLead | null {
  let best: AgentView | undefined;
  let bestC = -Infinity;
  let secondC = -Infinity;
  for (const a of roster) {
    const c = competenceOf(a, niche, c0);
    if (c > bestC) {
      secondC = bestC;
      bestC = c;
      best = a;
    } else if (c > secondC) {
      secondC = c;
    }
  }
  if (!best) return null;
  const runnerUp = secondC === -Infinity ? bestC : secondC;
  return { agentId: best.id, competence: bestC, runnerUp, lead: bestC - runnerUp, exposure: best.exposure[niche] ?? 0 };
}

/** Who would anchor `niche`: argmax competence, ties to the earliest in spawn order; null for an empty roster. */
export function anchorOf(roster: readonly AgentView[], niche: string, c0: number): string | null {
  return nicheLead(roster, niche, c0)?.agentId ?? null;
}

/**
 * The specialist of `niche`: its anchor (see `anchorOf` for ties), provided it leads the second
 * best by at least `margin` and has seen at least `minExposure` tasks of the niche; else null.
 */
export function specialistOf(roster: readonly AgentView[], niche: string, c0: number, margin: number, minExposure: number): string | null {
  const lead = nicheLead(roster, niche, c0);
  if (!lead || roster.length < 2) return null;
  return meetsThreshold(lead.lead, margin) && lead.exposure >= minExposure ? lead.agentId : null;
}

/** `specialistOf` for every niche, in the given order. */
export function specialists(roster: readonly AgentView[], niches: readonly string[], c0: number, margin: number, minExposure: number): Record<string, string | null> {
  const out: Record<string, string | null> = {};
  for (const n of niches) out[n] = specialistOf(roster, n, c0, margin, minExposure);
  return out;
}

/** How competence on one niche is distributed over a roster (for reports). */
export interface CompetenceSpread {
  readonly count: number;
  readonly max: number;
  readonly median: number;
  readonly min: number;
  readonly mean: number;
  /** Population standard deviation. */
  readonly std: number;
  /** Gini coefficient in [0, 1): 0 when everyone is equal; higher when one agent holds the niche. */
  readonly gini: number;
}

/** Median of a non-empty list (the mean of the two middle values for an even count). */
export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** Distribution of competence on `niche` (unseen at `c0`); all zeros for an empty roster. */
export function competenceSpread(roster: readonly AgentView[], niche: string, c0: number): CompetenceSpread {
  const xs = roster.map((a) => competenceOf(a, niche, c0)).sort((x, y) => x - y);
  const n = xs.length;
  if (n === 0) return { count: 0, max: 0, median: 0, min: 0, mean: 0, std: 0, gini: 0 };
  const mean = xs.reduce((s, x) => s + x, 0) / n;
  const std = Math.sqrt(xs.reduce((s, x) => s + (x - mean) ** 2, 0) / n);
  // Gini over sorted values: Σ(2i − n − 1)·x_i / (n · Σx).
  const total = mean * n;
  const gini = total === 0 ? 0 : xs.reduce((s, x, i) => s + (2 * (i + 1) - n - 1) * x, 0) / (n * total);
  return { count: n, max: xs[n - 1]!, median: median(xs), min: xs[0]!, mean, std, gini };
}

/** How long a niche's current specialist has held it. */
export interface SpecialistStreak {
  readonly agentId: string;
  /** Consecutive windows, ending at the latest, with this agent as the niche's specialist. */
  readonly windows: number;
}

/**
 * For every niche that has a specialist in the latest window, how many consecutive windows (up
 * to and including the latest) that same agent was its specialist. A niche absent from an earlier
 * window's map had no specialist then.
 */
export function specialistStreaks(history: readonly SpecialistMap[]): Record<string, SpecialistStreak> {
  const out: Record<string, SpecialistStreak> = {};
  const latest = history[history.length - 1];
  if (!latest) return out;
  for (const [niche, agentId] of Object.entries(latest)) {
    if (agentId === null) continue;
    let windows = 0;
    for (let i = history.length - 1; i >= 0 && history[i]![niche] === agentId; i--) windows++;
    out[niche] = { agentId, windows };
  }
  return out;
}

/** Niches whose specialist has held them for at least `stableWindows` consecutive windows up to the latest → that agent. */
export function stableSpecialists(history: readonly SpecialistMap[], stableWindows = 2): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [niche, s] of Object.entries(specialistStreaks(history))) if (s.windows >= stableWindows) out[niche] = s.agentId;
  return out;
}

/** Number of stable (niche, specialist) pairs; one agent stable on two niches counts twice. */
export function stableSpecialistCount(history: readonly SpecialistMap[], stableWindows = 2): number {
  return Object.keys(stableSpecialists(history, stableWindows)).length;
}

/**
 * Accumulates one specialist map per lifecycle window and answers stability questions. Owns
 * copies of the maps it is given, so callers may reuse theirs.
 */
export class StabilityTracker {
  private readonly windows: SpecialistMap[] = [];

  /** @param stableWindows consecutive windows that make a specialist stable (default 2). */
  constructor(readonly stableWindows = 2) {}

  /** Record the latest window's specialist map. */
  record(map: SpecialistMap): void {
    this.windows.push({ ...map });
  }

  /** Every recorded map, oldest first (a new array). */
  history(): SpecialistMap[] {
    return this.windows.slice();
  }

  /** Stable specialists as of the latest window: niche → agent. */
  stable(): Record<string, string> {
    return stableSpecialists(this.windows, this.stableWindows);
  }

  /** Number of stable (niche, specialist) pairs as of the latest window. */
  count(): number {
    return stableSpecialistCount(this.windows, this.stableWindows);
  }
}
