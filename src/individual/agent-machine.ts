import { assign, setup, type ActorRefFrom } from 'xstate';
import { Archive, type ArchiveEntry } from './archive';
import { observe, type CompetenceParams } from './competence';

/** How an agent came to be. */
export interface AgentOrigin {
  readonly kind: 'seed' | 'genesis' | 'fork' | 'merge';
  readonly parents: readonly string[];
  readonly poolVersion: number;
  readonly reason?: string;
}

/** What an agent actor owns. Only its own actions change it. */
export interface AgentContext extends CompetenceParams {
  readonly id: string;
  readonly persona: string;
  /** Mutable index; changed only inside this actor's `addExperience` and `absorb` assign actions. */
  readonly archive: Archive;
  readonly competence: Readonly<Record<string, number>>;
  readonly exposure: Readonly<Record<string, number>>;
  /**
   * Rewards in the order observed, for windowed statistics (prune, merge). An append-only log: the
   * `observe` assign action appends to it in place (a copy per observation made a long run
   * quadratic), so a snapshot's array grows with later observations; entries never change.
   */
  readonly history: ReadonlyArray<HistoryEntry>;
  readonly origin: AgentOrigin;
  /** Set when retired by a merge: where its updates go now. */
  readonly successor: string | null;
}

/** One observed reward. */
export interface HistoryEntry {
  readonly niche: string;
  readonly reward: number;
  readonly poolVersion: number;
}

/** Input to create an agent actor. */
export interface AgentInput extends CompetenceParams {
  readonly id: string;
  readonly persona: string;
  readonly dim: number;
  readonly origin: AgentOrigin;
  readonly archive?: Archive;
  readonly competence?: Record<string, number>;
  readonly exposure?: Record<string, number>;
}

/** Events an agent accepts. */
export type AgentEvent =
  | { type: 'OBSERVE'; niche: string; reward: number; poolVersion: number }
  | { type: 'ADD_EXPERIENCE'; entry: ArchiveEntry; poolVersion: number }
  | { type: 'SET_PERSONA'; persona: string }
  /** Merge: unite another agent's archive into this one (every entry kept once). */
  | { type: 'ABSORB'; archive: Archive }
  | { type: 'RETIRE'; successor?: string };

/**
 * The agent actor (xstate v5): owns persona, archive, competence and exposure.
 * States: `active` → `retired` (final; the snapshot keeps every field for inspection).
 */
export const agentMachine = setup({
  types: {
    context: {} as AgentContext,
    events: {} as AgentEvent,
    input: {} as AgentInput,
  },
  actions: {
    // The history array and the archive belong to this actor's context, and only these assign
    // actions change them, in place: the history is append-only and the archive an index too
    // large to copy per entry. Both are read by others only through snapshots (viewAgent).
    observe: assign(({ context, event }) => {
      if (event.type !== 'OBSERVE') return {};
      const history = context.history as HistoryEntry[];
      history.push({ niche: event.niche, reward: event.reward, poolVersion: event.poolVersion });
      return { ...observe(context, event.niche, event.reward, context), history };
    }),
    // Archive.add throws on a key of the wrong length: the actor fails (status `error`) and the
    // supervisor escalates that to the run.
    addExperience: assign(({ context, event }) => {
      if (event.type === 'ADD_EXPERIENCE') context.archive.add({ ...event.entry, committedAt: event.poolVersion });
      return { archive: context.archive };
    }),
    absorb: assign(({ context, event }) => {
      if (event.type === 'ABSORB') context.archive.mergeFrom(event.archive);
      return { archive: context.archive };
    }),
    setPersona: assign(({ event }) => (event.type === 'SET_PERSONA' ? { persona: event.persona } : {})),
    // A retired agent serves no task: its archive's search structures go (its entries stay, and a
    // search rebuilds what it needs, should anything read it again).
    retire: assign(({ context, event }) => {
      if (event.type !== 'RETIRE') return {};
      context.archive.release();
      return { successor: event.successor ?? null };
    }),
  },
}).createMachine({
  id: 'agent',
  context: ({ input }) => ({
    id: input.id,
    persona: input.persona,
    archive: input.archive ?? new Archive({ dim: input.dim }),
    competence: input.competence ?? {},
    exposure: input.exposure ?? {},
    history: [],
    origin: input.origin,
    successor: null,
    eta: input.eta,
    c0: input.c0,
  }),
  initial: 'active',
  states: {
    active: {
      on: {
        OBSERVE: { actions: 'observe' },
        ADD_EXPERIENCE: { actions: 'addExperience' },
        SET_PERSONA: { actions: 'setPersona' },
        ABSORB: { actions: 'absorb' },
        RETIRE: { target: 'retired', actions: 'retire' },
      },
    },
    retired: { type: 'final' },
  },
});

/** A reference to a running (or retired) agent actor. */
export type AgentRef = ActorRefFrom<typeof agentMachine>;
