import { enqueueActions, setup, type ActorRefFrom } from 'xstate';
import type { ArchiveEntry } from '../individual/archive';
import { agentMachine, type AgentInput } from '../individual/agent-machine';

/** A reference to a running (or retired) agent actor. */
export type AgentRef = ActorRefFrom<typeof agentMachine>;

/** One task's committed effects on the pool. */
export interface PoolUpdate {
  readonly taskId: string;
  /** Competence observations, one per member. */
  readonly observations: ReadonlyArray<{ readonly agentId: string; readonly niche: string; readonly reward: number }>;
  /** Experience entries to add, per receiving agent. */
  readonly experiences: ReadonlyArray<{ readonly agentId: string; readonly entry: ArchiveEntry }>;
}

/** What the supervisor owns: the roster (in spawn order) and the pool version. */
export interface SupervisorContext {
  readonly agents: ReadonlyMap<string, AgentRef>;
  readonly poolVersion: number;
}

/** Events the supervisor accepts. */
export type SupervisorEvent =
  | { type: 'SPAWN_AGENT'; input: AgentInput }
  | { type: 'APPLY_UPDATE'; update: PoolUpdate };

/**
 * The population supervisor (xstate v5): spawns agent actors, routes committed task updates to
 * them as events, and bumps `poolVersion` once per applied update. Nobody else writes an agent.
 */
export const supervisorMachine = setup({
  types: {
    context: {} as SupervisorContext,
    events: {} as SupervisorEvent,
  },
  actors: { agent: agentMachine },
  actions: {
    spawnAgent: enqueueActions(({ context, event, enqueue }) => {
      if (event.type !== 'SPAWN_AGENT') return;
      if (context.agents.has(event.input.id)) throw new Error(`agent id already in the pool: ${event.input.id}`);
      enqueue.assign(({ spawn }) => {
        const ref = spawn('agent', { id: event.input.id, input: event.input }) as AgentRef;
        const agents = new Map(context.agents);
        agents.set(event.input.id, ref);
        return { agents };
      });
    }),
    applyUpdate: enqueueActions(({ context, event, enqueue }) => {
      if (event.type !== 'APPLY_UPDATE') return;
      const version = context.poolVersion + 1;
      const target = (id: string): AgentRef => {
        const ref = context.agents.get(id);
        if (!ref) throw new Error(`update for unknown agent ${id} (task ${event.update.taskId})`);
        return ref;
      };
      for (const o of event.update.observations) {
        enqueue.sendTo(target(o.agentId), { type: 'OBSERVE', niche: o.niche, reward: o.reward, poolVersion: version });
      }
      for (const x of event.update.experiences) {
        enqueue.sendTo(target(x.agentId), { type: 'ADD_EXPERIENCE', entry: x.entry });
      }
      enqueue.assign({ poolVersion: version });
    }),
  },
}).createMachine({
  id: 'supervisor',
  context: { agents: new Map(), poolVersion: 0 },
  on: {
    SPAWN_AGENT: { actions: 'spawnAgent' },
    APPLY_UPDATE: { actions: 'applyUpdate' },
  },
});
