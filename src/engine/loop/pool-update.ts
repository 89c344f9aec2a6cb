import type { AgentView } from '../../individual/agent-view';
import { routeDream, type RoutingMode } from '../../population/codream/routing';
import type { ExperienceRequest, PoolUpdate } from '../../population/supervisor-machine';
import { CHOOSER_REGISTRY } from '../../team/choosers';
import { keepsRecords } from '../../team/choosers/chooser';
import { cancelledMembers } from '../../team/structures/structure';
import type { EvolveOutcome } from './evolve-stage';
import { teamProfile } from './task-stages';
import { taskFailed, type TaskOutcome } from './task-run';

export { taskFailed };


/**
 * Competence measures the agent's own ability: its independent first answer where it gave one
 * (teammates' answers would move everyone in lockstep), else its final answer, else the team's.
 */
export function competenceObservations(out: TaskOutcome): PoolUpdate['observations'] {
  if (taskFailed(out) || !out.team) return [];
  const g = out.grading!;
  // A member whose request was cancelled once the majority was decided gave no answer of its own:
  // its speed says nothing about its ability, so it gets no observation (not a zero, not the team's reward).
  const cancelled = out.result ? cancelledMembers(out.result) : new Set<string>();
  return out.team.members.filter((m) => !cancelled.has(m.agent.id)).map((m) => {
    const id = m.agent.id;
    return { agentId: id, niche: out.deps.task.niche, reward: (g.independent[id] ?? g.members[id] ?? g.team).reward };
  });
}

/** What applying an evolve outcome needs to know about the pool and the preset. */
export interface UpdatePolicy {
  /** The active roster when the outcome is applied (CoDream routes over it). */
  readonly roster: readonly AgentView[];
  readonly c0: number;
  /** How CoDream insights are routed. */
  readonly routing: RoutingMode;
}

/**
 * The reward-driven update one graded task asks for at its solve commit: competence observations,
 * the team's synergy outcome and the LeadLearn record (its note comes later, from the evolve stage).
 * What the supervisor actually applies comes back as its change set.
 */
export function poolUpdateOf(out: TaskOutcome): PoolUpdate {
  const { task } = out.deps;
  const failed = taskFailed(out);
  const members = out.team?.members.map((m) => m.agent.id) ?? [];
  const reward = failed ? 0 : out.grading!.team.reward;
  const team = !failed && members.length > 1 ? { members, niche: task.niche, reward, readFrom: out.deps.poolVersion } : undefined;
  const leadership = !failed && out.choice && out.team && keepsRecords(CHOOSER_REGISTRY.get(out.deps.preset.chooser)) ? {
    id: leadershipEntryId(task.id), taskId: task.id, niche: task.niche, difficulty: task.difficulty,
    teamProfile: teamProfile(out.deps, out.team), structure: out.choice.structure, outcome: reward,
    note: '', poolVersion: out.deps.poolVersion, key: out.choice.key,
  } : undefined;
  return {
    taskId: task.id, observations: competenceObservations(out), experiences: [],
    ...(team ? { team } : {}), ...(leadership ? { leadership } : {}),
  };
}

/** The bank entry id of a task's LeadLearn record. */
export const leadershipEntryId = (taskId: string) => `lead:${taskId}`;

/**
 * The lessons and insights one evolve outcome asks to add: each member's reflection entries, then
 * CoDream's insights routed over the roster as it is now. Staleness policies judge each of them
 * before they are applied.
 */
export function evolveRequestsOf(evo: EvolveOutcome, p: UpdatePolicy): ExperienceRequest[] {
  if (evo.error || taskFailed(evo.out)) return [];
  const { task } = evo.out.deps;
  const requests: ExperienceRequest[] = [];
  for (const r of evo.reflections) for (const entry of r.entries) requests.push({ agentId: r.agentId, entry });
  if (evo.dream) {
    requests.push(...routeDream(evo.dream, p.roster, task.niche, p.c0, p.routing, { taskId: task.id, poolVersion: evo.out.deps.poolVersion }));
  }
  return requests;
}

/** The update applying an evolve outcome: the kept (or patched) lessons and insights, and the leader's note on the task's bank entry. */
export function evolveUpdateOf(evo: EvolveOutcome, experiences: readonly ExperienceRequest[], bankHasEntry: boolean): PoolUpdate {
  const { task } = evo.out.deps;
  const note = !evo.error && evo.note && bankHasEntry ? { entryId: leadershipEntryId(task.id), note: evo.note.note } : undefined;
  return { taskId: task.id, observations: [], experiences, ...(note ? { note } : {}) };
}
