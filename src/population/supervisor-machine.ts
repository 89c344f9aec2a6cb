import { assign, enqueueActions, setup } from 'xstate';
import { normalizeArchiveText, type ArchiveEntry } from '../individual/archive';
import { agentMachine, type AgentInput, type AgentRef } from '../individual/agent-machine';
import { AgentFailedError } from '../individual/agent-view';
import { LeadershipBank, type LeadershipEntry } from '../team/leadlearn/leadership-bank';
import { SynergyTable, type SynergyChange } from './synergy';

/** A CoDream delivery an experience entry came from: which insight, and why this agent got it. */
export interface InsightRouting {
  readonly insightId: string;
  readonly authors: readonly string[];
  readonly level: string;
  /** Niche bucket, or the meta pool for cross-domain insights. */
  readonly pool: 'niche' | 'meta';
  /** The niche whose competence decided the routing. */
  readonly niche: string;
  readonly competence: number;
  readonly median: number;
}

/** One experience entry for one agent, as a task's commit asks for it. */
export interface ExperienceRequest {
  readonly agentId: string;
  readonly entry: ArchiveEntry;
  /** Set for a CoDream insight: the routing decision that addressed it to `agentId`. */
  readonly routing?: InsightRouting;
}

/** One task's effects on the pool, as the engine asks for them. */
export interface PoolUpdate {
  readonly taskId: string;
  /** Competence observations, one per member. */
  readonly observations: ReadonlyArray<{ readonly agentId: string; readonly niche: string; readonly reward: number }>;
  /** Experience entries to add, per receiving agent. */
  readonly experiences: readonly ExperienceRequest[];
  /** A team outcome to fold into pair synergy (teams of two or more). */
  readonly team?: { readonly members: readonly string[]; readonly niche: string; readonly reward: number };
  /** A leadership record to append to the shared bank. */
  readonly leadership?: LeadershipEntry;
  /** The leader's note for a bank entry appended earlier (the evolve stage writes it after the outcome). */
  readonly note?: { readonly entryId: string; readonly note: string };
}

/** What became of one requested experience entry. */
export interface EntryChange extends ExperienceRequest {
  /**
   * `stored`: added to `receiver`'s archive; `duplicate`: `receiver` already holds the text in that
   * bucket; `retired`: the agent was pruned and has no successor, so nobody got it.
   */
  readonly status: 'stored' | 'duplicate' | 'retired';
  /** The agent it went to: `agentId` itself, or its merge successor if it retired since the task started; null when none is live. */
  readonly receiver: string | null;
}

/**
 * What one APPLY_UPDATE actually changed: the supervisor's answer to a `PoolUpdate`. Events and
 * the summary are derived from it, so they can never claim an effect the pool did not take.
 */
export interface UpdateChanges {
  readonly taskId: string;
  /** The pool version the update was committed at. */
  readonly poolVersion: number;
  /** Observations delivered, each to the agent the update named. */
  readonly observed: ReadonlyArray<{ readonly agentId: string; readonly niche: string; readonly reward: number }>;
  /** Observations dropped: the agent retired after the task started and no longer serves. */
  readonly droppedObservations: ReadonlyArray<{ readonly agentId: string; readonly niche: string; readonly reward: number }>;
  /** Every requested entry, in the update's order, with what became of it. */
  readonly entries: readonly EntryChange[];
  /** Pair synergy moves, pairs in member order. */
  readonly synergy: readonly SynergyChange[];
  /** The bank entry appended (with `committedAt`), if any. */
  readonly leadership: LeadershipEntry | null;
  /** The note set on a bank entry, if any. */
  readonly note: { readonly entryId: string; readonly note: string } | null;
}

/** What the supervisor owns: roster (spawn order), pool version, pair synergy, the leadership bank. */
export interface SupervisorContext {
  /** Every agent ever spawned, retired ones included, in spawn order. */
  readonly agents: ReadonlyMap<string, AgentRef>;
  /** The active agents only, in spawn order: what per-task work scans, so its cost does not grow with agents retired. */
  readonly active: ReadonlyMap<string, AgentRef>;
  readonly poolVersion: number;
  /** Versioned index; appended to only inside this actor's `applyUpdate` assign. */
  readonly synergy: SynergyTable;
  /** Mutable index; appended to only inside this actor's `applyUpdate` assign. */
  readonly bank: LeadershipBank;
  readonly synergyEta: number;
  readonly synergy0: number;
  /** The change set of the last APPLY_UPDATE (null before the first). */
  readonly lastUpdate: UpdateChanges | null;
}

/** Supervisor settings. */
export interface SupervisorInput {
  /** Embedding dimension (for the leadership bank's keys and every archive). */
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

const isDone = (ref: AgentRef) => ref.getSnapshot().status === 'done';

/** `active` without `id` (a new map: snapshots taken before keep theirs). */
function withoutAgent(active: ReadonlyMap<string, AgentRef>, id: string): ReadonlyMap<string, AgentRef> {
  if (!active.has(id)) return active;
  const next = new Map(active);
  next.delete(id);
  return next;
}

/**
 * Where knowledge for `id` goes: the agent itself while active, else its merge successor (followed
 * through chains of merges); null for a pruned agent.
 */
function liveAgent(agents: ReadonlyMap<string, AgentRef>, id: string): AgentRef | null {
  let ref: AgentRef | undefined = agents.get(id);
  for (let hops = 0; ref && isDone(ref) && hops < 64; hops++) {
    const next: string | null = ref.getSnapshot().context.successor;
    ref = next ? agents.get(next) : undefined;
  }
  return ref && !isDone(ref) ? ref : null;
}

/**
 * The population supervisor (xstate v5): spawns agent actors, routes committed task updates to
 * them as events, owns pair synergy and the leadership bank, and bumps `poolVersion` once per
 * applied update. Nobody else writes an agent or the shared team state.
 *
 * Invalid input (a duplicate spawn, an unknown agent, a key of the wrong dimension) throws inside
 * the action, before anything is applied, which puts the supervisor in xstate's `error` status;
 * an agent that fails does the same through the `xstate.error.actor.*` event. Senders use
 * `sendToSupervisor` (population/supervisor-ops.ts), which turns that status into a synchronous throw.
 */
export const supervisorMachine = setup({
  types: {
    context: {} as SupervisorContext,
    events: {} as SupervisorEvent,
    input: {} as SupervisorInput,
  },
  actors: { agent: agentMachine },
  actions: {
    spawnAgent: assign(({ context, event, spawn }) => {
      if (event.type !== 'SPAWN_AGENT') return {};
      const { input } = event;
      if (context.agents.has(input.id)) throw new Error(`spawn: agent id already in the pool: ${input.id}`);
      if (input.dim !== context.bank.embeddingDim) throw new RangeError(`spawn ${input.id}: dimension ${input.dim} does not match the pool's ${context.bank.embeddingDim}`);
      if (input.archive && input.archive.dim !== input.dim) throw new RangeError(`spawn ${input.id}: archive dimension ${input.archive.dim} does not match ${input.dim}`);
      const ref = spawn('agent', { id: input.id, input }) as AgentRef;
      const agents = new Map(context.agents);
      agents.set(input.id, ref);
      const active = new Map(context.active);
      active.set(input.id, ref);
      return { agents, active };
    }),
    applyUpdate: enqueueActions(({ context, event, enqueue }) => {
      if (event.type !== 'APPLY_UPDATE') return;
      const { update } = event;
      const version = context.poolVersion + 1;
      const known = (id: string): AgentRef => {
        const ref = context.agents.get(id);
        if (!ref) throw new Error(`update for unknown agent ${id} (task ${update.taskId})`);
        return ref;
      };
      // Validate everything before anything is sent: an invalid update fails whole, never half-applied.
      for (const x of update.experiences) {
        const { dim } = known(x.agentId).getSnapshot().context.archive;
        if (x.entry.key.length !== dim) {
          throw new RangeError(`update for ${x.agentId} (task ${update.taskId}): entry ${x.entry.id} has a key of length ${x.entry.key.length}, its archive's dimension is ${dim}`);
        }
      }
      if (update.leadership && update.leadership.key.length !== context.bank.embeddingDim + 3) {
        throw new RangeError(`update (task ${update.taskId}): leadership key of length ${update.leadership.key.length}, the bank's is ${context.bank.embeddingDim + 3}`);
      }
      if (update.note && !context.bank.has(update.note.entryId)) {
        throw new Error(`update (task ${update.taskId}): note for unknown bank entry ${update.note.entryId}`);
      }

      // A task that started before a lifecycle window may name agents retired since. Their
      // competence observations are dropped (they no longer serve); knowledge goes to the
      // successor of a merged agent, and is dropped for a pruned one.
      const observed: UpdateChanges['observed'][number][] = [];
      const droppedObservations: UpdateChanges['droppedObservations'][number][] = [];
      for (const o of update.observations) {
        const ref = known(o.agentId);
        if (isDone(ref)) { droppedObservations.push(o); continue; }
        enqueue.sendTo(ref, { type: 'OBSERVE', niche: o.niche, reward: o.reward, poolVersion: version });
        observed.push(o);
      }
      // An archive keeps one entry per normalized text and bucket; entries of this update are not
      // in it yet (the agents add them after this action), so they are tracked here.
      const pending = new Set<string>();
      const entries: EntryChange[] = [];
      for (const x of update.experiences) {
        const ref = liveAgent(context.agents, x.agentId);
        if (!ref) { entries.push({ ...x, status: 'retired', receiver: null }); continue; }
        const to = ref.getSnapshot().context.id;
        const slot = `${to}\u0000${x.entry.niche === null ? 'meta' : `niche:${x.entry.niche}`}\u0000${normalizeArchiveText(x.entry.text)}`;
        if (pending.has(slot) || ref.getSnapshot().context.archive.has(x.entry.text, x.entry.niche)) {
          entries.push({ ...x, status: 'duplicate', receiver: to });
          continue;
        }
        pending.add(slot);
        enqueue.sendTo(ref, { type: 'ADD_EXPERIENCE', entry: x.entry, poolVersion: version });
        entries.push({ ...x, status: 'stored', receiver: to });
      }
      enqueue.assign(({ context: c }) => {
        const leadership = update.leadership ? { ...update.leadership, committedAt: version } : null;
        if (leadership) c.bank.add(leadership);
        if (update.note) c.bank.setNote(update.note.entryId, update.note.note, version);
        const synergy = update.team && update.team.members.length > 1
          ? c.synergy.apply(update.team.members, update.team.niche, update.team.reward, c.synergyEta, c.synergy0, version)
          : [];
        const changes: UpdateChanges = {
          taskId: update.taskId, poolVersion: version, observed, droppedObservations, entries, synergy, leadership, note: update.note ?? null,
        };
        return { poolVersion: version, synergy: c.synergy, bank: c.bank, lastUpdate: changes };
      });
    }),
    retireAgent: enqueueActions(({ context, event, enqueue }) => {
      if (event.type !== 'RETIRE_AGENT') return;
      const ref = context.agents.get(event.id);
      if (!ref) throw new Error(`retire: unknown agent ${event.id}`);
      if (event.successor !== undefined && !context.agents.has(event.successor)) throw new Error(`retire ${event.id}: unknown successor ${event.successor}`);
      enqueue.sendTo(ref, { type: 'RETIRE', successor: event.successor });
      enqueue.assign(({ context: c }) => ({ active: withoutAgent(c.active, event.id) }));
    }),
    mergeAgents: enqueueActions(({ context, event, enqueue }) => {
      if (event.type !== 'MERGE_AGENTS') return;
      const keep = context.agents.get(event.keep);
      const gone = context.agents.get(event.retire);
      if (!keep || !gone) throw new Error(`merge: unknown agent ${keep ? event.retire : event.keep}`);
      if (event.keep === event.retire) throw new Error(`merge: an agent cannot absorb itself (${event.keep})`);
      enqueue.sendTo(keep, { type: 'ABSORB', archive: gone.getSnapshot().context.archive });
      enqueue.sendTo(gone, { type: 'RETIRE', successor: event.keep });
      enqueue.assign(({ context: c }) => ({ active: withoutAgent(c.active, event.retire) }));
    }),
    setPersona: enqueueActions(({ context, event, enqueue }) => {
      if (event.type !== 'SET_PERSONA') return;
      const ref = context.agents.get(event.id);
      if (!ref) throw new Error(`persona: unknown agent ${event.id}`);
      enqueue.sendTo(ref, { type: 'SET_PERSONA', persona: event.persona });
    }),
    bumpVersion: assign(({ context }) => ({ poolVersion: context.poolVersion + 1 })),
    /** An agent actor failed: the pool is no longer consistent, so the supervisor fails with it. */
    agentFailed: ({ event }) => {
      const e = event as unknown as { type: string; error: unknown };
      throw new AgentFailedError(e.type.slice('xstate.error.actor.'.length), e.error);
    },
  },
}).createMachine({
  id: 'supervisor',
  context: ({ input }) => ({
    agents: new Map(), active: new Map(), poolVersion: 0, synergy: new SynergyTable(), bank: new LeadershipBank(input.dim),
    synergyEta: input.synergyEta, synergy0: input.synergy0, lastUpdate: null,
  }),
  on: {
    SPAWN_AGENT: { actions: 'spawnAgent' },
    APPLY_UPDATE: { actions: 'applyUpdate' },
    RETIRE_AGENT: { actions: 'retireAgent' },
    MERGE_AGENTS: { actions: 'mergeAgents' },
    SET_PERSONA: { actions: 'setPersona' },
    BUMP_VERSION: { actions: 'bumpVersion' },
    'xstate.error.actor.*': { actions: 'agentFailed' },
  },
});
