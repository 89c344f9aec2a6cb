import type { AppliedUpdate } from '../../population/supervisor-ops';
import { evolveGap, type EvolveOutcome } from './evolve-stage';
import { evolveFallbacksOf, solveFallbacksOf } from './events-from-changes';
import { taskFailed } from './pool-update';
import type { SummaryBuilder } from './summary';
import type { TaskOutcome } from './task-run';

/**
 * Fold one task's solve commit into the run summary: its grade or failure, the choice's fallback,
 * teamwork, and the rounds its structure skipped.
 */
export function addTaskToSummary(summary: SummaryBuilder, out: TaskOutcome): void {
  const { task } = out.deps;
  const failed = taskFailed(out);
  for (const f of solveFallbacksOf(out)) summary.addFallback(f.stage);
  if (!failed) summary.add(task.niche, out.grading!.team.reward, out.grading!.team.correct);
  else summary.addFailure(task.niche, out.error?.stage ?? 'other');
  if (!failed && out.grading!.team.flaky) summary.addFlaky();
  if (out.result?.earlyStop) summary.addEarlyStop(out.result.earlyStop.roundsSkipped, out.result.earlyStop.tokensSaved);
  summary.addTeamwork(task.niche, out.choice?.structure ?? null, out.result?.disagreement ?? false, out.choice?.source === 'fallback');
}

/**
 * Fold one applied evolve outcome into the run summary: its fallbacks, reflections, CoDream's
 * session with the deliveries the supervisor's change set reports, and the staleness decisions.
 */
export function addEvolveToSummary(summary: SummaryBuilder, evo: EvolveOutcome, changes: AppliedUpdate): void {
  for (const f of evolveFallbacksOf(evo)) summary.addFallback(f.stage);
  summary.addEvolveApplied(evolveGap(evo, changes.poolVersion));
  if (evo.error) { summary.addEvolveFailure(evo.error.stage); return; }
  for (const r of evo.reflections) {
    if (r.parsed) summary.reflectionsParsed++;
    else summary.reflectionsFailed++;
  }
  if (evo.dream) summary.addDream(evo.dream.insights.length, changes.entries.filter((e) => e.routing).length);
}
