import { viewRoster } from '../individual/agent-view';
import type { LanguageModel } from '../llm/model';
import { AppliedHistory } from '../population/staleness/applied-history';
import { getStalenessPolicy } from '../population/staleness';
import type { StaleItem } from '../population/staleness/policy';
import { stalenessEvent } from '../population/staleness/staleness-events';
import type { ExperienceRequest, UpdateChanges } from '../population/supervisor-machine';
import type { Supervisor } from '../population/supervisor-ops';
import type { EventBody } from '../store/event-log';
import type { StalenessJudge } from './commit';
import type { StalenessVerdicts } from './events-from-changes';
import type { SummaryBuilder } from './summary';

/** What a staleness judge needs from the run. */
export interface StalenessJudgeOptions {
  /** `engine.staleness`: the policy's name and the gap it tolerates unexamined. */
  readonly config: { readonly policy: string; readonly tau: number };
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
  const policy = getStalenessPolicy(o.config.policy);
  const { tau } = o.config;
  const history = new AppliedHistory();
  const judge: StalenessJudge = async (requests, evo) => {
    const snap = o.supervisor.getSnapshot().context;
    const current = snap.poolVersion;
    const roster = viewRoster(snap.agents, false);
    const { task } = evo.out.deps;
    const decided = await Promise.all(requests.map(async (request) => {
      const item: StaleItem = { request, version: evo.version, taskId: task.id, question: task.question, kind: request.routing ? 'insight' : 'lesson' };
      const decision = await policy.decide(item, {
        current, tau, since: history.since(item, current, roster), roster, model: o.model, seedKey: `${task.id}/${request.agentId}/${request.entry.id}/stale`,
      });
      return { item, decision };
    }));
    const kept: ExperienceRequest[] = [];
    const tally: { kept: number; patched: number; dropped: number; decisions: Array<StalenessVerdicts['decisions'][number]>; fallbacks: EventBody[] } = { kept: 0, patched: 0, dropped: 0, decisions: [], fallbacks: [] };
    for (const { item, decision: d } of decided) {
      o.summary.addStaleness(d);
      const at = { agentId: item.request.agentId, entryId: item.request.entry.id };
      if (d.action === 'keep') {
        kept.push(item.request);
        tally.kept++;
        // A reflective call that failed or gave no usable verdict keeps the item: say so.
        if (d.fallback) { const ev = stalenessEvent(item, d, current); if (ev) tally.fallbacks.push(ev); }
      } else if (d.action === 'patch') {
        kept.push(d.request);
        tally.patched++;
        tally.decisions.push({ action: 'patch', ...at, reason: d.reason });
      } else {
        tally.dropped++;
        tally.decisions.push({ action: 'drop', ...at, reason: d.reason });
      }
    }
    return { requests: kept, tally };
  };
  return { judge, record: (changes) => history.push(changes) };
}
