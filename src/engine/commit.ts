import type { SimSideChannel } from '../llm/sim/side-channel';
import type { AccountingModel } from '../llm/token-accounting';
import type { RoutingMode } from '../population/codream/routing';
import { viewRoster } from '../individual/agent-view';
import { applyPoolUpdate, type AppliedUpdate, type Supervisor } from '../population/supervisor-ops';
import type { EventLog } from '../store/event-log';
import { taskEvents } from './events-from-changes';
import { poolUpdateOf } from './pool-update';
import type { SummaryBuilder } from './summary';
import { addTaskToSummary } from './task-summary';
import type { TaskOutcome } from './task-run-machine';

/** What committing a task touches. */
export interface CommitDeps {
  readonly supervisor: Supervisor;
  readonly log: EventLog;
  readonly summary: SummaryBuilder;
  readonly c0: number;
  /** How CoDream insights are routed (the preset's choice). */
  readonly routing: RoutingMode;
  readonly sideChannel?: SimSideChannel;
  /** Where the task's own token counts are taken from, for its `task.done` event. */
  readonly usage?: Pick<AccountingModel, 'takeTask'>;
}

/**
 * Commit one task's outcome, in stream order: build the update it asks for, let the supervisor
 * apply it, then log the events and fold the summary from the change set it actually applied.
 * Throws SupervisorFailedError (nothing logged for the task) when the supervisor rejects the update.
 */
export function commitTask(c: CommitDeps, out: TaskOutcome): AppliedUpdate {
  const roster = viewRoster(c.supervisor.getSnapshot().context.agents);
  const update = poolUpdateOf(out, { roster, c0: c.c0, routing: c.routing });
  const changes = applyPoolUpdate(c.supervisor, update);
  for (const event of taskEvents(out, changes, c.usage?.takeTask(out.deps.task.id))) c.log.append(event);
  addTaskToSummary(c.summary, out, changes);
  c.sideChannel?.unregister(out.deps.task.id);
  return changes;
}
