import { assign, sendParent, setup, type ActorRefFrom } from 'xstate';
import { Archive, type ArchiveEntry } from './archive';
import { observe, type CompetenceParams } from './competence';
import { RewardHistory, type HistoryEntry } from './reward-history';

export type { HistoryEntry } from './reward-history';

/** How an agent came to be. */
export interface AgentOrigin {
  readonly kind: 'seed' | 'genesis' | 'fork' | 'merge';
  readonly parents: readonly string[];
  readonly poolVersion: number;
  readonly reason?: string;
}

/**
 * What an agent actor owns. Only its own assign actions change it, and only by returning new
 * values: the archive and the history are persistent, so a snapshot never changes once taken.
 */
export interface AgentContext extends CompetenceParams {
  readonly id: string;
  readonly persona: string;
  /** Persistent: each addition is a new version (`Archive.with`, `Archive.union`). Once retired, its counts only (`Archive.retired`). */
  readonly archive: Archive;
  readonly competence: Readonly<Record<string, number>>;
  readonly exposure: Readonly<Record<string, number>>;
  /** Rewards in the order observed, for windowed statistics (prune, merge); persistent (`RewardHistory.with`). */
  readonly history: RewardHistory;
  readonly origin: AgentOrigin;
  /** Set when retired by a merge: where its updates go now. */
  readonly successor: string | null;
  /** Set when the agent refused an event it could not apply (state `failed`): why. */
  readonly failure?: string;
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
  /** Reward-history entries held at least (`RewardHistory.empty`; default all). */
  readonly historyWindow?: number;
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
 * States: `active` → `retired` (final; the snapshot keeps every field for inspection, the archive
 * as its counts only: `Archive.retired`; its entries are in the event log), or
 * `active` → `failed` on an event it cannot apply (a key of the wrong dimension), which it reports
 * to its parent as `AGENT_FAILED`. Senders validate first (the supervisor does), so that is a bug.
 */
export const agentMachine = setup({
  types: {
    context: {} as AgentContext,
    events: {} as AgentEvent,
    input: {} as AgentInput,
  },
  guards: {
    // Keys of the wrong length are refused here, before any assign: an action never throws.
    fits: ({ context, event }) => {
      if (event.type === 'ADD_EXPERIENCE') return event.entry.key.length === context.archive.dim;
      if (event.type === 'ABSORB') return event.archive.dim === context.archive.dim;
      return true;
    },
  },
  actions: {
    // Each returns new values; the archive and the history are persistent, so the values an
    // earlier snapshot holds stay as they were.
    observe: assign(({ context, event }) => {
      if (event.type !== 'OBSERVE') return {};
      const history = context.history.with({ niche: event.niche, reward: event.reward, poolVersion: event.poolVersion });
      return { ...observe(context, event.niche, event.reward, context), history };
    }),
    addExperience: assign(({ context, event }) => (
      event.type === 'ADD_EXPERIENCE' ? { archive: context.archive.with({ ...event.entry, committedAt: event.poolVersion }) } : {}
    )),
    absorb: assign(({ context, event }) => (event.type === 'ABSORB' ? { archive: context.archive.union(event.archive) } : {})),
    setPersona: assign(({ event }) => (event.type === 'SET_PERSONA' ? { persona: event.persona } : {})),
    retire: assign(({ event }) => (event.type === 'RETIRE' ? { successor: event.successor ?? null } : {})),
    // A retired agent serves no task: its archive's search structures go, and its context keeps the
    // archive's counts only (`Archive.retired`); the entries are in the event log. Views taken
    // before (tasks in flight) keep the full archive until they end.
    releaseSearch: assign(({ context }) => {
      context.archive.release();
      return { archive: context.archive.retired() };
    }),
    // A failure is an event: the agent keeps its state for inspection, takes no more updates and
    // tells its parent (the supervisor), which fails with it.
    refuse: assign(({ context, event }) => {
      const got = event.type === 'ADD_EXPERIENCE' ? `an entry key of length ${event.entry.key.length}` : event.type === 'ABSORB' ? `an archive of dimension ${event.archive.dim}` : event.type;
      return { failure: `${event.type}: ${got}, its archive's dimension is ${context.archive.dim}` };
    }),
    tellParent: sendParent(({ context }) => ({ type: 'AGENT_FAILED' as const, agentId: context.id, reason: context.failure ?? 'failed' })),
  },
}).createMachine({
  id: 'agent',
  context: ({ input }) => ({
    id: input.id,
    persona: input.persona,
    archive: input.archive ?? new Archive({ dim: input.dim }),
    competence: input.competence ?? {},
    exposure: input.exposure ?? {},
    history: RewardHistory.empty(input.historyWindow),
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
        ADD_EXPERIENCE: [{ guard: 'fits', actions: 'addExperience' }, { target: 'failed', actions: 'refuse' }],
        SET_PERSONA: { actions: 'setPersona' },
        ABSORB: [{ guard: 'fits', actions: 'absorb' }, { target: 'failed', actions: 'refuse' }],
        RETIRE: { target: 'retired', actions: ['retire', 'releaseSearch'] },
      },
    },
    retired: { type: 'final' },
    /** Refused an event it cannot apply (`failure` says why); takes no more events. */
    failed: { entry: 'tellParent' },
  },
});

/** A reference to a running (or retired) agent actor. */
export type AgentRef = ActorRefFrom<typeof agentMachine>;
