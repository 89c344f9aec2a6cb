import type { AgentContext, AgentRef } from './agent-machine';

/** A read-only snapshot of one agent, as everything outside the agent actor sees it. */
export interface AgentView extends AgentContext {
  readonly status: 'active' | 'retired';
}

/** An agent actor that failed (an action threw): its state is no longer trustworthy. */
export class AgentFailedError extends Error {
  constructor(readonly agentId: string, override readonly cause: unknown) {
    super(`agent ${agentId} failed: ${cause instanceof Error ? cause.message : String(cause)}`);
    this.name = 'AgentFailedError';
  }
}

/**
 * Views made, by the actor snapshot they were made from: a snapshot is immutable and replaced on
 * every change, so an agent that did not change since is viewed without copying its context again
 * (each task views its whole roster).
 */
const views = new WeakMap<object, AgentView>();

/** Snapshot of one agent actor. Throws AgentFailedError for a `failed` agent, or one in xstate's `error` (or `stopped`) status. */
export function viewAgent(ref: AgentRef): AgentView {
  const snap = ref.getSnapshot();
  const known = views.get(snap);
  if (known) return known;
  if (snap.status === 'active' && snap.value === 'failed') throw new AgentFailedError(snap.context.id, snap.context.failure);
  let view: AgentView;
  if (snap.status === 'active') view = { ...snap.context, status: 'active' };
  else if (snap.status === 'done') view = { ...snap.context, status: 'retired' };
  else throw new AgentFailedError(snap.context.id, snap.status === 'error' ? snap.error : 'stopped');
  views.set(snap, view);
  return view;
}

/** Snapshots of every agent in spawn order, optionally only the active ones. */
export function viewRoster(agents: ReadonlyMap<string, AgentRef>, activeOnly = true): AgentView[] {
  const out: AgentView[] = [];
  for (const ref of agents.values()) {
    const v = viewAgent(ref);
    if (!activeOnly || v.status === 'active') out.push(v);
  }
  return out;
}
