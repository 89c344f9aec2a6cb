import type { AgentView } from '../individual/agent-view';

/** A member's role on a team. Single-agent presets use `solo`. */
export type Role = 'solo' | 'anchor' | 'complement' | 'scout';

/** One agent serving on one task's team. */
export interface TeamMember {
  readonly agent: AgentView;
  readonly role: Role;
}

/** A team: members in role order; the first is the leader. */
export interface Team {
  readonly members: readonly TeamMember[];
  /** Why these members (per-member scores, for the event log). */
  readonly scores?: Readonly<Record<string, number>>;
}
