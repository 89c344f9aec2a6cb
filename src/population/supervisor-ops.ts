import type { ActorRefFrom } from 'xstate';
import { viewAgent } from '../individual/agent-view';
import { rejectSupervisorEvent, type PoolUpdate, type SupervisorEvent, type supervisorMachine, type UpdateChanges } from './supervisor-machine';

/** A running population supervisor. */
export type Supervisor = ActorRefFrom<typeof supervisorMachine>;

/** The supervisor failed (state `failed`, or xstate's `error` status): it takes no more events. */
export class SupervisorFailedError extends Error {
  constructor(override readonly cause: unknown) {
    super(`population supervisor failed: ${cause instanceof Error ? cause.message : String(cause)}`);
    this.name = 'SupervisorFailedError';
  }
}

/** An event the supervisor cannot apply, refused at the sender before it was sent; the supervisor is unchanged. */
export class SupervisorRejectedError extends Error {
  constructor(readonly reason: string) {
    super(`population supervisor refused the event: ${reason}`);
    this.name = 'SupervisorRejectedError';
  }
}

/** The supervisor's failure, or null while it runs. */
export function supervisorFailure(supervisor: Supervisor): SupervisorFailedError | null {
  const snap = supervisor.getSnapshot();
  if (snap.status === 'error') return new SupervisorFailedError(snap.error);
  return snap.context.failure ? new SupervisorFailedError(snap.context.failure) : null;
}

/**
 * Validate one event against the supervisor's state, then send it. Throws SupervisorRejectedError
 * for an event it cannot apply — a duplicate spawn, an unknown agent, a key of the wrong dimension
 * — without sending it (nothing is applied, the supervisor runs on), and SupervisorFailedError
 * when the supervisor failed, before or on this event (xstate processes the event and every agent
 * event it causes synchronously).
 */
export function sendToSupervisor(supervisor: Supervisor, event: SupervisorEvent): void {
  const before = supervisorFailure(supervisor);
  if (before) throw before;
  const reason = rejectSupervisorEvent(supervisor.getSnapshot().context, event);
  if (reason) throw new SupervisorRejectedError(reason);
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
 * (its `update.applied` answer to this event), completed with the competence each observed agent
 * now holds — read from the agent itself, which owns that computation. Throws
 * SupervisorRejectedError on an invalid update, SupervisorFailedError on a failed supervisor.
 */
export function applyPoolUpdate(supervisor: Supervisor, update: PoolUpdate): AppliedUpdate {
  let applied: UpdateChanges | null = null;
  const answer = supervisor.on('update.applied', (e) => { applied = e.changes; });
  try {
    sendToSupervisor(supervisor, { type: 'APPLY_UPDATE', update });
  } finally {
    answer.unsubscribe();
  }
  const changes = applied as UpdateChanges | null;
  if (!changes || changes.taskId !== update.taskId) throw new Error(`supervisor applied no change set for task ${update.taskId}`);
  const { agents } = supervisor.getSnapshot().context;
  return {
    ...changes,
    observed: changes.observed.map((o) => {
      const a = viewAgent(agents.get(o.agentId)!);
      return { ...o, competence: a.competence[o.niche]!, exposure: a.exposure[o.niche]! };
    }),
  };
}
