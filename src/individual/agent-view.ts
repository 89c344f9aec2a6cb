import type { AgentContext, AgentRef } from './agent-machine';

/** A read-only snapshot of one agent, as everything outside the agent actor sees it. */
export interface AgentView extends AgentContext {
  readonly status: 'active' | 'retired';
}

/** Snapshot of one agent actor. */
export function viewAgent(ref: AgentRef): AgentView {
  const snap = ref.getSnapshot();
  return { ...snap.context, status: snap.status === 'done' ? 'retired' : 'active' };
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
