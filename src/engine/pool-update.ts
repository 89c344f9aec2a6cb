import type { AgentView } from '../individual/agent-view';
import { routeDream, type RoutingMode } from '../population/codream/routing';
import type { ExperienceRequest, PoolUpdate } from '../population/supervisor-machine';
import { teamProfile } from './task-stages';
import type { TaskOutcome } from './task-run-machine';

/**
 * A task fails when a stage met an infrastructure failure (a member call out of retries, a
 * grader or sandbox error). It is never graded and updates nothing: no competence, synergy,
 * LeadLearn record, lesson or insight — an outage says nothing about agents or structures.
 */
export function taskFailed(out: TaskOutcome): boolean {
  return out.error !== null || !out.grading;
}

/**
 * Competence measures the agent's own ability: its independent first answer where it gave one
 * (teammates' answers would move everyone in lockstep), else its final answer, else the team's.
 */
export function competenceObservations(out: TaskOutcome): PoolUpdate['observations'] {
  if (taskFailed(out) || !out.team) return [];
  const g = out.grading!;
  return out.team.members.map((m) => {
    const id = m.agent.id;
    return { agentId: id, niche: out.deps.task.niche, reward: (g.independent[id] ?? g.members[id] ?? g.team).reward };
  });
}

/** What the commit needs to know about the pool and the preset to build an update. */
export interface UpdatePolicy {
  /** The active roster at commit time (CoDream routes over it). */
  readonly roster: readonly AgentView[];
  readonly c0: number;
  /** How CoDream insights are routed. */
  readonly routing: RoutingMode;
}

/**
 * The pool update one committed task asks for: competence observations, each member's reflection
 * entries, CoDream's routed insights, the team's synergy outcome and the LeadLearn record. What
 * the supervisor actually applies (forwarding, dedup, drops) comes back as its change set.
 */
export function poolUpdateOf(out: TaskOutcome, p: UpdatePolicy): PoolUpdate {
  const { task } = out.deps;
  const failed = taskFailed(out);
  const experiences: ExperienceRequest[] = [];
  if (!failed) {
    for (const r of out.reflections) for (const entry of r.entries) experiences.push({ agentId: r.agentId, entry });
    if (out.dream) {
      experiences.push(...routeDream(out.dream, p.roster, task.niche, p.c0, p.routing, { taskId: task.id, poolVersion: out.deps.poolVersion }));
    }
  }
  const members = out.team?.members.map((m) => m.agent.id) ?? [];
  const reward = failed ? 0 : out.grading!.team.reward;
  const team = !failed && members.length > 1 ? { members, niche: task.niche, reward } : undefined;
  const leadership = !failed && out.note && out.choice && out.team ? {
    id: `lead:${task.id}`, taskId: task.id, niche: task.niche, difficulty: task.difficulty,
    teamProfile: teamProfile(out.deps, out.team), structure: out.choice.structure, outcome: reward,
    note: out.note.note, poolVersion: out.deps.poolVersion, key: out.choice.key,
  } : undefined;
  return {
    taskId: task.id, observations: competenceObservations(out), experiences,
    ...(team ? { team } : {}), ...(leadership ? { leadership } : {}),
  };
}
