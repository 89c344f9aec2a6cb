import type { ActorRefFrom } from 'xstate';
import { viewAgent } from '../individual/agent-view';
import type { PoolUpdate, SupervisorEvent, supervisorMachine, UpdateChanges } from './supervisor-machine';

/** A running population supervisor. */
export type Supervisor = ActorRefFrom<typeof supervisorMachine>;

/** The supervisor actor is in xstate's `error` status: an action threw, and it takes no more events. */
export class SupervisorFailedError extends Error {
  constructor(override readonly cause: unknown) {
    super(`population supervisor failed: ${cause instanceof Error ? cause.message : String(cause)}`);
    this.name = 'SupervisorFailedError';
  }
}

/** The supervisor's failure, or null while it runs. */
export function supervisorFailure(supervisor: Supervisor): SupervisorFailedError | null {
  const snap = supervisor.getSnapshot();
  return snap.status === 'error' ? new SupervisorFailedError(snap.error) : null;
}

/**
 * Send one event and throw SupervisorFailedError if the supervisor failed on it (or before).
 * xstate processes the event and every agent event it causes synchronously, so an invalid event
 * — a duplicate spawn, an unknown agent, a key of the wrong dimension — fails here, at the
 * sender, instead of leaving an actor that silently drops every later event.
 */
export function sendToSupervisor(supervisor: Supervisor, event: SupervisorEvent): void {
  const before = supervisorFailure(supervisor);
  if (before) throw before;
  supervisor.send(event);
  const after = supervisorFailure(supervisor);
  if (after) throw after;
}

/** One competence observation as applied: the agent's competence and exposure on the niche after it. */
export interface AppliedObservation {
  readonly agentId: string;
  readonly niche: string;
  readonly reward: number;
  readonly competence: number;
  readonly exposure: number;
}

/** The change set of one applied update, with each observed agent's resulting competence. */
export interface AppliedUpdate extends Omit<UpdateChanges, 'observed'> {
  readonly observed: readonly AppliedObservation[];
}

/**
 * Apply one task's update through the supervisor and return the change set it actually applied
 * (`lastUpdate`), completed with the competence each observed agent now holds — read from the
 * agent itself, which owns that computation. Throws SupervisorFailedError on an invalid update.
 */
export function applyPoolUpdate(supervisor: Supervisor, update: PoolUpdate): AppliedUpdate {
  sendToSupervisor(supervisor, { type: 'APPLY_UPDATE', update });
  const { lastUpdate, agents } = supervisor.getSnapshot().context;
  if (!lastUpdate || lastUpdate.taskId !== update.taskId) throw new Error(`supervisor applied no change set for task ${update.taskId}`);
  return {
    ...lastUpdate,
    observed: lastUpdate.observed.map((o) => {
      const a = viewAgent(agents.get(o.agentId)!);
      return { ...o, competence: a.competence[o.niche]!, exposure: a.exposure[o.niche]! };
    }),
  };
}
