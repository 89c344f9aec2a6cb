import { viewAgent, type AgentView } from '../../individual/agent-view';
import type { LanguageModel } from '../../llm/model';
import { AppliedHistory } from '../../population/staleness/applied-history';
import { getStalenessPolicy } from '../../population/staleness';
import type { AppliedSinceEntry, StaleItem } from '../../population/staleness/policy';
import { stalenessEvent } from '../../population/staleness/staleness-events';
import type { ExperienceRequest, UpdateChanges } from '../../population/supervisor-machine';
import type { Supervisor } from '../../population/supervisor-ops';
import type { RunEvent } from '../../store/events';
import type { StalenessJudge } from './commit';
import type { SummaryBuilder } from './summary';

/** What a staleness judge needs from the run. */
export interface StalenessJudgeOptions {
  /** `engine.staleness`: the policy's name and the gap it tolerates unexamined (read at each judgement: a meta edit may change it). */
  readonly config: () => { readonly policy: string; readonly tau: number };
  readonly supervisor: Supervisor;
  readonly model: LanguageModel;
  readonly summary: SummaryBuilder;
}

/** A staleness judge, and the history of applied updates it reads (`record` every applied evolve update). */
export interface StalenessJudgeHandle {
  readonly judge: StalenessJudge;
  record(changes: UpdateChanges): void;
}

/**
 * The run's staleness judge: before an evolve outcome is applied, the policy decides each of its
 * lessons and insights (keep, patch, drop) against the updates applied since the outcome's version.
 * Decisions are taken in parallel (a reflective policy makes one model call per stale item) and
 * folded in request order, so the result does not depend on which call answers first.
 */
export function stalenessJudge(o: StalenessJudgeOptions): StalenessJudgeHandle {
  const history = new AppliedHistory();
  const judge: StalenessJudge = async (requests, evo) => {
    const { policy: name, tau } = o.config();
    const policy = getStalenessPolicy(name);
    const snap = o.supervisor.getSnapshot().context;
    const current = snap.poolVersion;
    // Looked up by id, so judging costs what the receiver chains cost, not the agents ever spawned.
    const views = new Map<string, AgentView | undefined>();
    const roster = (id: string): AgentView | undefined => {
      if (!views.has(id)) { const ref = snap.agents.get(id); views.set(id, ref ? viewAgent(ref) : undefined); }
      return views.get(id);
    };
    const { task } = evo.out.deps;
    const decided = await Promise.all(requests.map(async (request) => {
      const item: StaleItem = { request, version: evo.version, taskId: task.id, question: task.question, kind: request.routing ? 'insight' : 'lesson' };
      // Read on demand: only a policy that examines the item reads it (reflective, past tau), and
      // at 256 agents a CoDream session's hundred deliveries each collected their bucket's history.
      // Versions in (item.version, current] are fixed once applied, so a late read sees the same.
      let since: readonly AppliedSinceEntry[] | undefined;
      const decision = await policy.decide(item, {
        current, tau, get since() { return since ??= history.since(item, current, roster); }, roster, model: o.model, seedKey: `${task.id}/${request.agentId}/${request.entry.id}/stale`,
      });
      return { item, decision };
    }));
    const kept: ExperienceRequest[] = [];
    const tally = { kept: 0, patched: 0, dropped: 0, events: [] as RunEvent[] };
    for (const { item, decision: d } of decided) {
      o.summary.addStaleness(d);
      // A drop, a patch, or a keep because the reflective call gave no usable verdict, says so.
      const event = stalenessEvent(item, d, current);
      if (event) tally.events.push(event);
      if (d.action === 'drop') { tally.dropped++; continue; }
      kept.push(d.action === 'patch' ? d.request : item.request);
      if (d.action === 'patch') tally.patched++;
      else tally.kept++;
    }
    return { requests: kept, tally };
  };
  return { judge, record: (changes) => history.push(changes) };
}
