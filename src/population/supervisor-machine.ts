import { assign, enqueueActions, setup } from 'xstate';
import { Archive, normalizeArchiveText, type ArchiveEntry } from '../individual/archive';
import { agentMachine, type AgentInput, type AgentRef } from '../individual/agent-machine';
import { AgentFailedError } from '../individual/agent-view';
import { LeadershipBank, type LeadershipEntry } from '../team/leadlearn/leadership-bank';
import { SynergyTable, type SynergyChange } from './synergy';
import { DEFAULT_STATE_BOUNDS, type StateBounds } from './state-bounds';

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
  /**
   * A team outcome to fold into pair synergy (teams of two or more). `readFrom`: the pool version
   * the task started from (synergy values older than what it read are no task's to read any more).
   */
  readonly team?: { readonly members: readonly string[]; readonly niche: string; readonly reward: number; readonly readFrom?: number };
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
  /** The table as of `poolVersion` (a versioned view: later versions never show through it). */
  readonly synergy: SynergyTable;
  /** The bank as of `poolVersion` (a versioned view: later versions never show through it). */
  readonly bank: LeadershipBank;
  /** What the pool keeps in memory however long the stream (scenario `bounds`). */
  readonly bounds: StateBounds;
  readonly synergyEta: number;
  readonly synergy0: number;
  /** Why the supervisor failed (state `failed`): an event it refused, or an agent that failed; null while it runs. */
  readonly failure: Error | null;
}

/** Supervisor settings. */
export interface SupervisorInput {
  /** Embedding dimension (for the leadership bank's keys and every archive). */
  readonly dim: number;
  readonly synergyEta: number;
  readonly synergy0: number;
  /** What the pool keeps in memory however long the stream (default: every bound at its default). */
  readonly bounds?: StateBounds;
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

/** What the supervisor emits: each APPLY_UPDATE's answer, the change set it applied (`supervisor.on('update.applied', …)`). */
export type SupervisorEmitted = { type: 'update.applied'; changes: UpdateChanges };

/** What an agent tells its parent when it refuses an event (agent-machine's `failed` state). */
type AgentFailedEvent = { type: 'AGENT_FAILED'; agentId: string; reason: string };

/**
 * Why the supervisor in `context` cannot apply `event`, or null when it can. Pure: senders call it
 * before `send` (sendToSupervisor does), and the machine's guard calls it again so that an event
 * sent around the check fails the supervisor (state `failed`) instead of being half applied.
 */
export function rejectSupervisorEvent(context: SupervisorContext, event: SupervisorEvent): string | null {
  const { agents } = context;
  switch (event.type) {
    case 'SPAWN_AGENT': {
      const { input } = event;
      if (agents.has(input.id)) return `spawn: agent id already in the pool: ${input.id}`;
      if (input.dim !== context.bank.embeddingDim) return `spawn ${input.id}: dimension ${input.dim} does not match the pool's ${context.bank.embeddingDim}`;
      if (input.archive && input.archive.dim !== input.dim) return `spawn ${input.id}: archive dimension ${input.archive.dim} does not match ${input.dim}`;
      return null;
    }
    case 'APPLY_UPDATE': {
      const { update } = event;
      for (const o of update.observations) if (!agents.has(o.agentId)) return `update for unknown agent ${o.agentId} (task ${update.taskId})`;
      for (const x of update.experiences) {
        const ref = agents.get(x.agentId);
        if (!ref) return `update for unknown agent ${x.agentId} (task ${update.taskId})`;
        const { dim } = ref.getSnapshot().context.archive;
        if (x.entry.key.length !== dim) return `update for ${x.agentId} (task ${update.taskId}): entry ${x.entry.id} has a key of length ${x.entry.key.length}, its archive's dimension is ${dim}`;
      }
      if (update.leadership && update.leadership.key.length !== context.bank.embeddingDim + 3) {
        return `update (task ${update.taskId}): leadership key of length ${update.leadership.key.length}, the bank's is ${context.bank.embeddingDim + 3}`;
      }
      if (update.leadership && context.bank.has(update.leadership.id)) return `update (task ${update.taskId}): leadership entry ${update.leadership.id} added twice`;
      if (update.note && !context.bank.has(update.note.entryId)) {
        return `update (task ${update.taskId}): note for unknown bank entry ${update.note.entryId}`;
      }
      return null;
    }
    case 'RETIRE_AGENT':
      if (!agents.has(event.id)) return `retire: unknown agent ${event.id}`;
      if (event.successor !== undefined && !agents.has(event.successor)) return `retire ${event.id}: unknown successor ${event.successor}`;
      return null;
    case 'MERGE_AGENTS':
      if (!agents.has(event.keep)) return `merge: unknown agent ${event.keep}`;
      if (!agents.has(event.retire)) return `merge: unknown agent ${event.retire}`;
      if (event.keep === event.retire) return `merge: an agent cannot absorb itself (${event.keep})`;
      // A retired agent's archive is no longer in memory (its counts only), so it cannot be absorbed.
      if (isDone(agents.get(event.retire)!)) return `merge: ${event.retire} is already retired`;
      if (isDone(agents.get(event.keep)!)) return `merge: ${event.keep} is retired and cannot absorb ${event.retire}`;
      return null;
    case 'SET_PERSONA':
      return agents.has(event.id) ? null : `persona: unknown agent ${event.id}`;
    case 'BUMP_VERSION':
      return null;
  }
}

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
 * Its context changes only by new values from `assign`; the bank and the synergy table in it are
 * versioned views, so a snapshot never changes once taken. No action throws: senders validate
 * with `rejectSupervisorEvent` before `send` (`sendToSupervisor` does), an event that gets past
 * that anyway moves the supervisor to `failed` with the reason in `failure`, and so does an agent
 * that fails (its `AGENT_FAILED` event). A failed supervisor takes no more events.
 */
export const supervisorMachine = setup({
  types: {
    context: {} as SupervisorContext,
    events: {} as SupervisorEvent | AgentFailedEvent,
    input: {} as SupervisorInput,
    emitted: {} as SupervisorEmitted,
  },
  actors: { agent: agentMachine },
  guards: {
    rejected: ({ context, event }) => event.type !== 'AGENT_FAILED' && rejectSupervisorEvent(context, event as SupervisorEvent) !== null,
  },
  actions: {
    spawnAgent: assign(({ context, event, spawn }) => {
      if (event.type !== 'SPAWN_AGENT') return {};
      // The pool's bounds apply to every agent it spawns (an agent's own setting, if any, wins;
      // children bring their parent's archive, a clone, which keeps its caps).
      const { historyWindow, archiveBucket, metaPool } = context.bounds;
      const archive = event.input.archive ?? new Archive({ dim: event.input.dim, capacity: archiveBucket, metaCapacity: metaPool });
      const input = { historyWindow, ...event.input, archive };
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
      // A task that started before a lifecycle window may name agents retired since. Their
      // competence observations are dropped (they no longer serve); knowledge goes to the
      // successor of a merged agent, and is dropped for a pruned one.
      const observed: UpdateChanges['observed'][number][] = [];
      const droppedObservations: UpdateChanges['droppedObservations'][number][] = [];
      for (const o of update.observations) {
        const ref = context.agents.get(o.agentId)!;
        if (isDone(ref)) { droppedObservations.push(o); continue; }
        enqueue.sendTo(ref, { type: 'OBSERVE', niche: o.niche, reward: o.reward, poolVersion: version });
        observed.push(o);
      }
      // An archive keeps one entry per normalized text and bucket; entries of this update are not
      // in it yet (the agents add them after this action), so they are tracked here.
      // By normalized text, then receiver and bucket: the texts are the strings normalized once
      // below (a handful per update), so a lookup hashes a string whose hash it already knows and a
      // short key, not a fresh concatenation of the whole text per delivery.
      const pending = new Map<string, Set<string>>();
      const entries: EntryChange[] = [];
      // A CoDream insight goes to every agent below the median: its text is normalized once, not once per receiver.
      const normalized = new Map<string, string>();
      for (const x of update.experiences) {
        const ref = liveAgent(context.agents, x.agentId);
        if (!ref) { entries.push({ ...x, status: 'retired', receiver: null }); continue; }
        const to = ref.getSnapshot().context.id;
        let text = normalized.get(x.entry.text);
        if (text === undefined) normalized.set(x.entry.text, text = normalizeArchiveText(x.entry.text));
        const slot = `${to}\u0000${x.entry.niche === null ? 'meta' : `niche:${x.entry.niche}`}`;
        let slots = pending.get(text);
        if (slots === undefined) pending.set(text, slots = new Set());
        if (slots.has(slot) || ref.getSnapshot().context.archive.hasNormalized(text, x.entry.niche)) {
          entries.push({ ...x, status: 'duplicate', receiver: to });
          continue;
        }
        slots.add(slot);
        enqueue.sendTo(ref, { type: 'ADD_EXPERIENCE', entry: x.entry, poolVersion: version });
        entries.push({ ...x, status: 'stored', receiver: to });
      }
      // The bank and the table append to their shared versioned stores; the context gets their
      // views as of the new version, and the views earlier snapshots hold read as they did.
      const leadership = update.leadership ? { ...update.leadership, committedAt: version } : null;
      const bank = context.bank.with(leadership, update.note ?? null, version);
      const { table: synergyTable, changes: synergy } = update.team && update.team.members.length > 1
        ? context.synergy.with(update.team.members, update.team.niche, update.team.reward, context.synergyEta, context.synergy0, version, update.team.readFrom)
        : { table: context.synergy.at(version), changes: [] };
      const changes: UpdateChanges = {
        taskId: update.taskId, poolVersion: version, observed, droppedObservations, entries, synergy, leadership, note: update.note ?? null,
      };
      enqueue.assign({ poolVersion: version, synergy: synergyTable, bank });
      enqueue.emit({ type: 'update.applied', changes });
    }),
    retireAgent: enqueueActions(({ context, event, enqueue }) => {
      if (event.type !== 'RETIRE_AGENT') return;
      enqueue.sendTo(context.agents.get(event.id)!, { type: 'RETIRE', successor: event.successor });
      context.synergy.retire(event.id, context.poolVersion);
      enqueue.assign(({ context: c }) => ({ active: withoutAgent(c.active, event.id) }));
    }),
    mergeAgents: enqueueActions(({ context, event, enqueue }) => {
      if (event.type !== 'MERGE_AGENTS') return;
      const keep = context.agents.get(event.keep)!;
      const gone = context.agents.get(event.retire)!;
      enqueue.sendTo(keep, { type: 'ABSORB', archive: gone.getSnapshot().context.archive });
      enqueue.sendTo(gone, { type: 'RETIRE', successor: event.keep });
      context.synergy.retire(event.retire, context.poolVersion);
      enqueue.assign(({ context: c }) => ({ active: withoutAgent(c.active, event.retire) }));
    }),
    setPersona: enqueueActions(({ context, event, enqueue }) => {
      if (event.type !== 'SET_PERSONA') return;
      enqueue.sendTo(context.agents.get(event.id)!, { type: 'SET_PERSONA', persona: event.persona });
    }),
    bumpVersion: assign(({ context }) => {
      const poolVersion = context.poolVersion + 1;
      return { poolVersion, synergy: context.synergy.at(poolVersion), bank: context.bank.at(poolVersion) };
    }),
    /** The event cannot be applied: say why, once, and take no more. */
    refuse: assign(({ context, event }) => ({ failure: new Error(rejectSupervisorEvent(context, event as SupervisorEvent) ?? event.type) })),
    /** An agent failed: the pool is no longer consistent, so the supervisor fails with it. */
    agentFailed: assign(({ event }) => {
      if (event.type === 'AGENT_FAILED') return { failure: new AgentFailedError(event.agentId, event.reason) };
      // An agent that threw after all (xstate.error.actor.<id>).
      const e = event as unknown as { type: string; error: unknown };
      return { failure: new AgentFailedError(e.type.slice('xstate.error.actor.'.length), e.error) };
    }),
  },
}).createMachine({
  id: 'supervisor',
  context: ({ input }) => ({
    agents: new Map(), active: new Map(), poolVersion: 0, synergy: new SynergyTable(), bank: new LeadershipBank(input.dim, undefined, Infinity, (input.bounds ?? DEFAULT_STATE_BOUNDS).leadlearnWindow),
    bounds: input.bounds ?? DEFAULT_STATE_BOUNDS,
    synergyEta: input.synergyEta, synergy0: input.synergy0, failure: null,
  }),
  initial: 'running',
  states: {
    running: {
      on: {
        SPAWN_AGENT: [{ guard: 'rejected', target: 'failed', actions: 'refuse' }, { actions: 'spawnAgent' }],
        APPLY_UPDATE: [{ guard: 'rejected', target: 'failed', actions: 'refuse' }, { actions: 'applyUpdate' }],
        RETIRE_AGENT: [{ guard: 'rejected', target: 'failed', actions: 'refuse' }, { actions: 'retireAgent' }],
        MERGE_AGENTS: [{ guard: 'rejected', target: 'failed', actions: 'refuse' }, { actions: 'mergeAgents' }],
        SET_PERSONA: [{ guard: 'rejected', target: 'failed', actions: 'refuse' }, { actions: 'setPersona' }],
        BUMP_VERSION: { actions: 'bumpVersion' },
        AGENT_FAILED: { target: 'failed', actions: 'agentFailed' },
        'xstate.error.actor.*': { target: 'failed', actions: 'agentFailed' },
      },
    },
    /** Refused an event or lost an agent (`failure` says which); takes no more events. */
    failed: {},
  },
});
