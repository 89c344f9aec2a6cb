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

/** Snapshot of one agent actor. Throws AgentFailedError for a `failed` agent, or one in xstate's `error` (or `stopped`) status. */
export function viewAgent(ref: AgentRef): AgentView {
  const snap = ref.getSnapshot();
  if (snap.status === 'active' && snap.value === 'failed') throw new AgentFailedError(snap.context.id, snap.context.failure);
  if (snap.status === 'active') return { ...snap.context, status: 'active' };
  if (snap.status === 'done') return { ...snap.context, status: 'retired' };
  throw new AgentFailedError(snap.context.id, snap.status === 'error' ? snap.error : 'stopped');
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
