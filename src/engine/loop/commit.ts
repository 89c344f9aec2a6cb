import type { AccountingModel, StageUsage } from '../../llm/token-accounting';
import type { RoutingMode } from '../../population/codream/routing';
import { viewRoster } from '../../individual/agent-view';
import type { ExperienceRequest } from '../../population/supervisor-machine';
import { applyPoolUpdate, type AppliedUpdate, type Supervisor } from '../../population/supervisor-ops';
import type { EventLog } from '../../store/event-log';
import type { EvolveOutcome } from './evolve-stage';
import { evolveEvents, taskEvents, type StalenessVerdicts } from './events-from-changes';
import { evolveRequestsOf, evolveUpdateOf, leadershipEntryId, poolUpdateOf } from './pool-update';
import type { SummaryBuilder } from './summary';
import { addEvolveToSummary, addTaskToSummary } from './task-summary';
import type { TaskOutcome } from './task-run';
import type { TaskObserver } from '../scenario/task-observer';
import { refusalCause, type StructureCooldown } from '../../team/structure-cooldown';

/** What committing a task touches. */
export interface CommitDeps {
  readonly supervisor: Supervisor;
  readonly log: EventLog;
  readonly summary: SummaryBuilder;
  readonly c0: number;
  /** How CoDream insights are routed (the preset's choice). */
  readonly routing: RoutingMode;
  /** Told when a task is done (its evolve outcome applied or found empty). */
  readonly observer?: TaskObserver;
  /** Where the task's own token counts are taken from, for its `task.done` and `evolve.applied` events. */
  readonly usage?: Pick<AccountingModel, 'takeTask'>;
  /** Told what each committed piece of work cost (the tokens its events carry): the run's budget meter. */
  readonly onCost?: (usage: Readonly<Record<string, StageUsage>> | undefined) => void;
  /** Failures that repeat: fed every committed task, in stream order. */
  readonly cooldown?: StructureCooldown;
}

/**
 * Commit one task's solve outcome, in stream order: build the reward-driven update it asks for
 * (competence, synergy, the LeadLearn outcome), let the supervisor apply it, then log the events
 * and fold the summary from the change set it actually applied.
 * Throws SupervisorRejectedError (nothing logged for the task) when the supervisor refuses the update, SupervisorFailedError when it has failed.
 */
export function commitTask(c: CommitDeps, out: TaskOutcome): AppliedUpdate {
  const changes = applyPoolUpdate(c.supervisor, poolUpdateOf(out));
  const tokens = c.usage?.takeTask(out.deps.task.id);
  c.onCost?.(tokens);
  for (const event of taskEvents(out, changes, tokens)) c.log.append(event);
  addTaskToSummary(c.summary, out);
  const { task } = out.deps;
  const aside = c.cooldown?.observe({
    niche: task.niche, index: task.index, structure: out.choice?.structure,
    cause: out.error?.stage === 'solve' && out.result ? refusalCause('solve', out.result.attempts) : null,
    attempts: out.result?.attempts ?? [],
  });
  if (aside) {
    c.log.append({ type: 'structure.set-aside', taskId: task.id, niche: aside.niche, structure: aside.structure, cause: aside.cause, untilTask: aside.untilTask });
    c.summary.addSetAside(aside);
  }
  return changes;
}

/**
 * How a staleness policy judges the lessons and insights of one evolve outcome before they are
 * applied: the requests to apply (kept or patched) and the tally of decisions.
 */
export type StalenessJudge = (requests: readonly ExperienceRequest[], evo: EvolveOutcome) => Promise<PreparedEvolve>;

/** The `full` policy's judge: everything is applied as computed. */
export const keepAll: StalenessJudge = (requests) => Promise.resolve({
  requests: [...requests], tally: { kept: requests.length, patched: 0, dropped: 0, events: [] },
});

/** An evolve outcome judged by the staleness policy: the lessons and insights to apply, and the tally of decisions. */
export interface PreparedEvolve {
  readonly requests: readonly ExperienceRequest[];
  readonly tally: StalenessVerdicts;
}

const NOTHING_TO_APPLY: PreparedEvolve = { requests: [], tally: { kept: 0, patched: 0, dropped: 0, events: [] } };

/** Nothing to apply: a failed task, or a preset without memory, notes or CoDream (no update, no event). */
const emptyEvolve = (evo: EvolveOutcome) => !evo.error && evo.reflections.length === 0 && evo.note === null && evo.dream === null;

/**
 * Judge one evolve outcome: route CoDream's insights over the roster as it is now and let the
 * staleness policy decide each lesson and insight against the updates applied since its version.
 */
export async function prepareEvolve(c: CommitDeps, evo: EvolveOutcome, judge: StalenessJudge = keepAll): Promise<PreparedEvolve> {
  if (emptyEvolve(evo)) return NOTHING_TO_APPLY;
  const roster = viewRoster(c.supervisor.getSnapshot().context.active);
  const requests = evolveRequestsOf(evo, { roster, c0: c.c0, routing: c.routing });
  return requests.length ? judge(requests, evo) : NOTHING_TO_APPLY;
}

/**
 * Apply one task's judged evolve outcome (reflections, the leader's note, CoDream's insights).
 * Outcomes are applied in task order; the events and summary come from the change set the
 * supervisor applied.
 */
export function applyEvolve(c: CommitDeps, evo: EvolveOutcome, prepared: PreparedEvolve): AppliedUpdate | null {
  if (emptyEvolve(evo)) {
    c.observer?.taskEnded(evo.out.deps.task.id);
    return null;
  }
  const bank = c.supervisor.getSnapshot().context.bank;
  const changes = applyPoolUpdate(c.supervisor, evolveUpdateOf(evo, prepared.requests, bank.has(leadershipEntryId(evo.out.deps.task.id))));
  const tokens = c.usage?.takeTask(evo.out.deps.task.id);
  c.onCost?.(tokens);
  for (const event of evolveEvents(evo, changes, prepared.tally, tokens)) c.log.append(event);
  addEvolveToSummary(c.summary, evo, changes);
  c.observer?.taskEnded(evo.out.deps.task.id);
  return changes;
}

/** Judge and apply one evolve outcome at once (`prepareEvolve` then `applyEvolve`). */
export async function commitEvolve(c: CommitDeps, evo: EvolveOutcome, judge: StalenessJudge = keepAll): Promise<AppliedUpdate | null> {
  return applyEvolve(c, evo, await prepareEvolve(c, evo, judge));
}
