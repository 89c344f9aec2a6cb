import type { ReportAgent, ReportData } from '../report-data';
import type { EventOf } from '../../store/events';

/**
 * The roster's history: every spawn (seed, genesis, fork, merge) with its parents and reason,
 * lifecycle decisions, retirements with successors, and persona rewrites, each stamped with the
 * number of tasks finished when it was logged.
 */
export class LineageCollector {
  private readonly agents = new Map<string, ReportAgent>();
  private readonly lineage: ReportData['lineage'] = { decisions: [], retirements: [], personas: [] };

  spawned(e: EventOf<'agent.spawned'>, tasksDone: number): void {
    this.agents.set(e.agentId, {
      agentId: e.agentId,
      origin: e.origin,
      parents: [...(e.parents ?? [])],
      persona: e.persona ?? null,
      reason: e.reason ?? null,
      window: e.window ?? null,
      spawnedAt: tasksDone,
      retiredAt: null,
      retiredReason: null,
      successor: null,
    });
  }

  /** Make sure an agent seen only in other events (a log that lost its spawn line) is on the roster. */
  ensure(agentId: string, tasksDone: number): void {
    if (!this.agents.has(agentId)) this.spawned({ type: 'agent.spawned', agentId, origin: 'unknown' }, tasksDone);
  }

  decision(e: EventOf<'lifecycle.decision'>, tasksDone: number): void {
    this.lineage.decisions.push({ window: e.window, tasksSeen: tasksDone, operator: e.operator, agents: [...e.agents], reason: e.reason });
  }

  retired(e: EventOf<'agent.retired'>, tasksDone: number): void {
    this.ensure(e.agentId, tasksDone);
    const a = this.agents.get(e.agentId)!;
    a.retiredAt = tasksDone;
    a.retiredReason = e.reason;
    a.successor = e.successor ?? null;
    this.lineage.retirements.push({ window: e.window ?? null, tasksSeen: tasksDone, agentId: e.agentId, reason: e.reason, successor: e.successor ?? null });
  }

  persona(e: EventOf<'agent.persona'>, tasksDone: number): void {
    this.ensure(e.agentId, tasksDone);
    this.agents.get(e.agentId)!.persona = e.persona;
    this.lineage.personas.push({ window: e.window ?? null, tasksSeen: tasksDone, agentId: e.agentId, persona: e.persona, reason: e.reason });
  }

  has(agentId: string): boolean {
    return this.agents.has(agentId);
  }

  finish(): { agents: ReportAgent[]; lineage: ReportData['lineage'] } {
    return { agents: [...this.agents.values()], lineage: this.lineage };
  }
}
