import type { AppliedUpdate } from '../population/supervisor-ops';
import { fallbacksOf } from './events-from-changes';
import { taskFailed } from './pool-update';
import type { SummaryBuilder } from './summary';
import type { TaskOutcome } from './task-run-machine';

/**
 * Fold one committed task into the run summary: its grade or failure, fallbacks, reflections,
 * teamwork, rounds its structure skipped, and CoDream's session with the deliveries the
 * supervisor's change set reports.
 */
export function addTaskToSummary(summary: SummaryBuilder, out: TaskOutcome, changes: AppliedUpdate): void {
  const { task } = out.deps;
  const failed = taskFailed(out);
  for (const f of fallbacksOf(out)) summary.addFallback(f.stage);
  for (const r of failed ? [] : out.reflections) {
    if (r.parsed) summary.reflectionsParsed++;
    else summary.reflectionsFailed++;
  }
  if (out.dream && !failed) summary.addDream(out.dream.insights.length, changes.entries.filter((e) => e.routing).length);
  if (!failed) summary.add(task.niche, out.grading!.team.reward, out.grading!.team.correct);
  else summary.addFailure(task.niche, out.error?.stage ?? 'other');
  if (out.result?.earlyStop) summary.addEarlyStop(out.result.earlyStop.roundsSkipped, out.result.earlyStop.tokensSaved);
  summary.addTeamwork(task.niche, out.choice?.structure ?? null, out.result?.disagreement ?? false, out.choice?.source === 'fallback');
}
