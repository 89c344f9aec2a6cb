import type { AgentView } from '../../individual/agent-view';
import type { ArchiveSource } from '../../individual/archive';
import type { LanguageModel } from '../../llm/model';
import type { ExperienceRequest } from '../supervisor-machine';

/**
 * Default version gap a lesson or insight may have before a policy looks at it. In the sequential
 * engine with W tasks in flight, task i reads the pool once task i − W has committed and commits
 * at most W versions later, so its outputs are at most W versions stale; W = 8 was measured
 * as costing no accuracy (600 tasks, 2 seeds) and W = 32 as costing 5.5 points. τ = 8 is the
 * largest gap measured harmless: everything it lets through unexamined is as fresh as that.
 */
export const DEFAULT_STALENESS_TAU = 8;

/** One evolve output waiting to be applied: a reflection lesson or a routed CoDream insight. */
export interface StaleItem {
  /** What would be sent to the supervisor as it stands. */
  readonly request: ExperienceRequest;
  /** Pool version the item was computed against. */
  readonly version: number;
  /** Task whose evolve stage produced it. */
  readonly taskId: string;
  /** The task's question: a patched entry's key is `embed(question + "\n" + text)`, as reflection and CoDream build theirs. */
  readonly question: string;
  readonly kind: 'lesson' | 'insight';
}

/** One experience entry the pool stored after an item's version, relevant to it (same receiver, or same bucket). */
export interface AppliedEntry {
  readonly kind: 'entry';
  readonly text: string;
  /** Its bucket: a niche, or null for the meta pool. */
  readonly niche: string | null;
  /** The agent that stored it. */
  readonly receiver: string;
  /** Pool version of the update that stored it. */
  readonly version: number;
  readonly source: ArchiveSource;
  readonly taskId: string;
}

/**
 * A roster change on the item's way to its receiver: `agentId` (the item's addressee, or a
 * successor it was forwarded to) is retired now, merged into `successor` or pruned (null). Items
 * are addressed to agents active at their version, so the retirement happened since.
 */
export interface RosterChange {
  readonly kind: 'retired';
  readonly agentId: string;
  readonly successor: string | null;
}

/** What a policy may see of the pool's history since an item's version. */
export type AppliedSinceEntry = AppliedEntry | RosterChange;

/** Agents by id, retired ones included: a list of views or a function that finds one. */
export type RosterLookup = readonly AgentView[] | ((agentId: string) => AgentView | undefined);

/** Everything a policy reads besides the item itself. */
export interface StalenessContext {
  /** Pool version the item would be applied at. */
  readonly current: number;
  /** Largest gap (current − version) an item may have without being examined. */
  readonly tau: number;
  /** Entries stored after the item's version for its receiver (through merges) or in its bucket, oldest first, then roster changes (`AppliedHistory.since`). */
  readonly since: readonly AppliedSinceEntry[];
  /**
   * The roster now, retired agents included: every view (`viewRoster(agents, false)`), or a lookup by
   * id (what the engine passes, so that judging an item costs what its receiver chain costs, not the
   * number of agents ever spawned).
   */
  readonly roster: RosterLookup;
  /** The model a policy may consult (the run's accounting model: calls are billed to stage `reflect`). */
  readonly model: LanguageModel;
  /** Stable seed key for this item's model call, unique per item (e.g. `<taskId>/<entryId>/stale`). */
  readonly seedKey: string;
}

/** Whether a policy called the model for this item (every decision says so, for the summary). */
interface DecisionBase {
  readonly calledModel: boolean;
}

/**
 * A policy's verdict: apply the item as it is, drop it, or apply `request` in its place. A keep
 * with `fallback` means the policy wanted the model's judgement and did not get a usable one.
 */
export type StalenessDecision = DecisionBase & (
  | { readonly action: 'keep'; readonly fallback?: string }
  | { readonly action: 'drop'; readonly reason: string }
  | { readonly action: 'patch'; readonly request: ExperienceRequest; readonly reason: string }
);

/**
 * A staleness policy (docs/how-it-works.md, "Staleness policies"; FlashEvolve §3.2): decides what becomes of one lesson or insight
 * computed against an older pool version. Contract: never throws for a failed model call or an
 * unusable reply (it keeps the item and says why); deterministic for the same item, context and
 * seed key; rewards are never offered to it. A policy does not apply anything: the engine does.
 */
export interface StalenessPolicy {
  readonly name: string;
  readonly description: string;
  decide(item: StaleItem, ctx: StalenessContext): Promise<StalenessDecision>;
}

/** Versions between an item's computation and its application. */
export function versionGap(item: StaleItem, ctx: Pick<StalenessContext, 'current'>): number {
  return ctx.current - item.version;
}
