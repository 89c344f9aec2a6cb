import { enqueueActions, setup } from 'xstate';
import type { ArchiveEntry } from '../individual/archive';
import { agentMachine, type AgentInput, type AgentRef } from '../individual/agent-machine';
import { LeadershipBank, type LeadershipEntry } from '../team/leadlearn/leadership-bank';
import { updateSynergy, type SynergyTable } from './synergy';

/** One task's committed effects on the pool. */
export interface PoolUpdate {
  readonly taskId: string;
  /** Competence observations, one per member. */
  readonly observations: ReadonlyArray<{ readonly agentId: string; readonly niche: string; readonly reward: number }>;
  /** Experience entries to add, per receiving agent. */
  readonly experiences: ReadonlyArray<{ readonly agentId: string; readonly entry: ArchiveEntry }>;
  /** A team outcome to fold into pair synergy (teams of two or more). */
  readonly team?: { readonly members: readonly string[]; readonly niche: string; readonly reward: number };
  /** A leadership record to append to the shared bank. */
  readonly leadership?: LeadershipEntry;
}

/** What the supervisor owns: roster (spawn order), pool version, pair synergy, the leadership bank. */
export interface SupervisorContext {
  readonly agents: ReadonlyMap<string, AgentRef>;
  readonly poolVersion: number;
  readonly synergy: SynergyTable;
  /** Mutable index; written only by this actor's `applyUpdate`. */
  readonly bank: LeadershipBank;
  readonly synergyEta: number;
  readonly synergy0: number;
}

/** Supervisor settings. */
export interface SupervisorInput {
  /** Embedding dimension (for the leadership bank's keys). */
  readonly dim: number;
  readonly synergyEta: number;
  readonly synergy0: number;
}

/** Events the supervisor accepts. */
export type SupervisorEvent =
  | { type: 'SPAWN_AGENT'; input: AgentInput }
  | { type: 'APPLY_UPDATE'; update: PoolUpdate }
  /** Lifecycle: retire an agent (prune), optionally naming where its updates now go. */
  | { type: 'RETIRE_AGENT'; id: string; successor?: string }
  /** Lifecycle: `keep` absorbs `retire`'s archive; `retire` is retired with `keep` as successor. */
  | { type: 'MERGE_AGENTS'; keep: string; retire: string }
  /** Lifecycle: rewrite an agent's persona (specialize). */
  | { type: 'SET_PERSONA'; id: string; persona: string }
  /** A lifecycle window was applied: bump the pool version once. */
  | { type: 'BUMP_VERSION' };

/**
 * The population supervisor (xstate v5): spawns agent actors, routes committed task updates to
 * them as events, owns pair synergy and the leadership bank, and bumps `poolVersion` once per
 * applied update. Nobody else writes an agent or the shared team state.
 */
export const supervisorMachine = setup({
  types: {
    context: {} as SupervisorContext,
    events: {} as SupervisorEvent,
    input: {} as SupervisorInput,
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
      const { update } = event;
      const version = context.poolVersion + 1;
      const target = (id: string): AgentRef => {
        const ref = context.agents.get(id);
        if (!ref) throw new Error(`update for unknown agent ${id} (task ${update.taskId})`);
        return ref;
      };
      // A task that started before a lifecycle window may name agents retired since. Their
      // competence observations are dropped (they no longer serve); knowledge goes to the
      // successor of a merged agent, and is dropped for a pruned one.
      const live = (id: string): AgentRef | null => {
        let ref: AgentRef | undefined = target(id);
        for (let hops = 0; ref && ref.getSnapshot().status === 'done' && hops < 64; hops++) {
          const next: string | null = ref.getSnapshot().context.successor;
          ref = next ? context.agents.get(next) : undefined;
        }
        return ref && ref.getSnapshot().status !== 'done' ? ref : null;
      };
      for (const o of update.observations) {
        const ref = target(o.agentId);
        if (ref.getSnapshot().status !== 'done') enqueue.sendTo(ref, { type: 'OBSERVE', niche: o.niche, reward: o.reward, poolVersion: version });
      }
      for (const x of update.experiences) {
        const ref = live(x.agentId);
        if (ref) enqueue.sendTo(ref, { type: 'ADD_EXPERIENCE', entry: x.entry, poolVersion: version });
      }
      if (update.leadership) context.bank.add({ ...update.leadership, committedAt: version });
      const synergy = update.team && update.team.members.length > 1
        ? updateSynergy(context.synergy, update.team.members, update.team.niche, update.team.reward, context.synergyEta, context.synergy0).table
        : context.synergy;
      enqueue.assign({ poolVersion: version, synergy });
    }),
    retireAgent: enqueueActions(({ context, event, enqueue }) => {
      if (event.type !== 'RETIRE_AGENT') return;
      const ref = context.agents.get(event.id);
      if (!ref) throw new Error(`retire: unknown agent ${event.id}`);
      enqueue.sendTo(ref, { type: 'RETIRE', successor: event.successor });
    }),
    mergeAgents: enqueueActions(({ context, event, enqueue }) => {
      if (event.type !== 'MERGE_AGENTS') return;
      const keep = context.agents.get(event.keep);
      const gone = context.agents.get(event.retire);
      if (!keep || !gone) throw new Error(`merge: unknown agent ${keep ? event.retire : event.keep}`);
      enqueue.sendTo(keep, { type: 'ABSORB', archive: gone.getSnapshot().context.archive });
      enqueue.sendTo(gone, { type: 'RETIRE', successor: event.keep });
    }),
    setPersona: enqueueActions(({ context, event, enqueue }) => {
      if (event.type !== 'SET_PERSONA') return;
      const ref = context.agents.get(event.id);
      if (!ref) throw new Error(`persona: unknown agent ${event.id}`);
      enqueue.sendTo(ref, { type: 'SET_PERSONA', persona: event.persona });
    }),
    bumpVersion: enqueueActions(({ context, enqueue }) => enqueue.assign({ poolVersion: context.poolVersion + 1 })),
  },
}).createMachine({
  id: 'supervisor',
  context: ({ input }) => ({
    agents: new Map(), poolVersion: 0, synergy: new Map(), bank: new LeadershipBank(input.dim),
    synergyEta: input.synergyEta, synergy0: input.synergy0,
  }),
  on: {
    SPAWN_AGENT: { actions: 'spawnAgent' },
    APPLY_UPDATE: { actions: 'applyUpdate' },
    RETIRE_AGENT: { actions: 'retireAgent' },
    MERGE_AGENTS: { actions: 'mergeAgents' },
    SET_PERSONA: { actions: 'setPersona' },
    BUMP_VERSION: { actions: 'bumpVersion' },
  },
});
