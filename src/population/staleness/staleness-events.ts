import type { EventOf } from '../../store/events';
import type { StaleItem, StalenessDecision } from './policy';

/**
 * The event for one staleness decision that changed something: `evolve.dropped` (reason),
 * `evolve.patched` (reason, the text before and after) or `evolve.fallback` (kept because the
 * policy could not get a usable verdict: cause); null for a plain keep. Each carries the task, the
 * addressed agent, the entry, the item's version, the version it was decided at and the gap.
 */
export function stalenessEvent(item: StaleItem, decision: StalenessDecision, current: number): EventOf<'evolve.dropped' | 'evolve.patched' | 'evolve.fallback'> | null {
  // A plain keep, nearly every decision: no event, and nothing built for one.
  if (decision.action === 'keep' && !decision.fallback) return null;
  const { agentId, entry } = item.request;
  const base = { taskId: item.taskId, agentId, entryId: entry.id, kind: item.kind, version: item.version, current, gap: current - item.version };
  switch (decision.action) {
    case 'drop':
      return { type: 'evolve.dropped', ...base, reason: decision.reason, text: entry.text };
    case 'patch':
      return { type: 'evolve.patched', ...base, reason: decision.reason, from: entry.text, to: decision.request.entry.text };
    case 'keep':
      return decision.fallback ? { type: 'evolve.fallback', ...base, cause: decision.fallback } : null;
  }
}
