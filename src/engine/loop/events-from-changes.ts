import { clip } from '../../core/text';
import type { StageUsage } from '../../llm/token-accounting';
import type { AppliedUpdate } from '../../population/supervisor-ops';
import type { EventOf, RunEvent } from '../../store/events';
import type { Task } from '../../tasks/task';
import type { FallbackStage } from './summary';
import { taskFailed } from './pool-update';
import type { TaskOutcome } from './task-run';
import { evolveGap, type EvolveOutcome } from './evolve-stage';

/**
 * The one place a task's events are made. What the run did (team, structure, attempts, grade,
 * reflections, CoDream session) comes from the task outcome; what the pool took (competence,
 * lessons, routed insights, synergy, the LeadLearn record) comes only from the change set the
 * supervisor applied, so no event claims an effect the pool did not take.
 */

/** `task.started`, written when the task run starts (in stream order), with the pool version it reads. */
export function taskStartedEvent(task: Task, poolVersion: number): EventOf<'task.started'> {
  return { type: 'task.started', taskId: task.id, niche: task.niche, difficulty: task.difficulty, block: task.block, poolVersion };
}

/** An evolve stage that used its default instead of the model's reply, and why. */
export interface StageFallback {
  readonly stage: FallbackStage;
  readonly agentId: string | null;
  readonly cause: string;
}

/** The fallback a task's solve stage took: LeadLearn's choice. */
export function solveFallbacksOf(out: TaskOutcome): StageFallback[] {
  const leader = out.team?.members[0]?.agent.id ?? null;
  return out.choice?.source === 'fallback' ? [{ stage: 'leadlearn', agentId: leader, cause: `choice: ${out.choice.why}` }] : [];
}

/** Every fallback a task's evolve stage took: the leader's note, a member's reflection, an abandoned CoDream session. */
export function evolveFallbacksOf(evo: EvolveOutcome): StageFallback[] {
  const leader = evo.out.team?.members[0]?.agent.id ?? null;
  const list: StageFallback[] = [];
  if (evo.note?.error) list.push({ stage: 'leadlearn', agentId: leader, cause: `note: model call failed: ${evo.note.error}` });
  for (const r of evo.reflections) if (r.fallback) list.push({ stage: 'reflect', agentId: r.agentId, cause: r.fallback });
  if (evo.dream?.fallback) list.push({ stage: 'codream', agentId: null, cause: evo.dream.fallback });
  return list;
}

/** What the task run did, up to its grade: team, structure, retrieval, attempts, grade or failure, the choice's fallback. */
function runEvents(out: TaskOutcome): RunEvent[] {
  const { task } = out.deps;
  const ev: RunEvent[] = [];
  if (out.team) {
    ev.push({ type: 'team.assembled', taskId: task.id, members: out.team.members.map((m) => ({ agentId: m.agent.id, role: m.role })), scores: out.team.scores ?? null });
  }
  if (out.choice) {
    const c = out.choice;
    ev.push({
      type: 'structure.chosen', taskId: task.id, niche: task.niche, structure: c.structure, source: c.source, why: c.why,
      retrieved: c.retrieved.map((e) => ({ id: e.id, niche: e.niche, structure: e.structure, outcome: e.outcome })),
    });
  }
  for (const [agentId, exp] of out.experience) {
    if (exp.lessons.length + exp.meta.length > 0) {
      ev.push({ type: 'experience.retrieved', taskId: task.id, agentId, lessons: exp.lessons.map((e) => e.id), meta: exp.meta.map((e) => e.id) });
    }
  }
  for (const a of out.result?.attempts ?? []) {
    ev.push({
      type: 'attempt', taskId: task.id, agentId: a.agentId, role: a.role, step: a.step, index: a.index,
      extracted: a.extracted, text: clip(a.text, 2000), promptTokens: a.usage.promptTokens, completionTokens: a.usage.completionTokens,
      ...(a.error ? { error: a.error } : {}),
      ...(a.cancelled ? { cancelled: true } : {}),
    });
  }
  const failed = taskFailed(out);
  if (!failed) {
    const team = out.grading!.team;
    ev.push({
      type: 'task.graded', taskId: task.id, niche: task.niche, reward: team.reward, correct: team.correct, extracted: team.extracted,
      detail: team.detail, disagreement: out.result?.disagreement ?? false, ...(team.flaky ? { flaky: true as const } : {}),
    });
  } else {
    const error = out.error ?? { stage: 'other' as const, message: 'not graded' };
    ev.push({ type: 'task.failed', taskId: task.id, niche: task.niche, stage: error.stage, error: error.message });
  }
  for (const f of solveFallbacksOf(out)) ev.push({ type: 'stage.fallback', taskId: task.id, ...f });
  return ev;
}

/** Every event of one task's solve commit, in log order; `task.done` carries the solve stage's calls and tokens by stage. */
export function taskEvents(out: TaskOutcome, changes: AppliedUpdate, tokens?: Record<string, StageUsage>): RunEvent[] {
  const { task } = out.deps;
  const version = changes.poolVersion;
  const failed = taskFailed(out);
  const ev = runEvents(out);
  for (const s of changes.synergy) ev.push({ type: 'synergy.updated', taskId: task.id, a: s.a, b: s.b, niche: s.niche, value: s.value, poolVersion: version });
  if (changes.leadership) {
    const l = changes.leadership;
    ev.push({
      type: 'leadlearn.entry', taskId: task.id, niche: l.niche, structure: l.structure, outcome: l.outcome,
      teamProfile: l.teamProfile, note: l.note, poolVersion: version,
    });
  }
  for (const o of changes.observed) {
    ev.push({
      type: 'competence.updated', taskId: task.id, agentId: o.agentId, niche: o.niche, reward: o.reward,
      competence: o.competence, exposure: o.exposure, poolVersion: version,
    });
  }
  for (const o of changes.droppedObservations) {
    ev.push({ type: 'competence.dropped', taskId: task.id, agentId: o.agentId, niche: o.niche, reward: o.reward, reason: 'retired', poolVersion: version });
  }
  ev.push({
    type: 'task.done', taskId: task.id, status: failed ? 'failed' : 'graded', reward: failed ? null : out.grading!.team.reward,
    poolVersion: version, startedAt: out.deps.poolVersion, ...(tokens ? { tokens } : {}),
    ...(out.result?.earlyStop ? { earlyStop: out.result.earlyStop } : {}),
  });
  return ev;
}

/** How the staleness policy judged the lessons and insights of one evolve outcome: counts, and the event of each decision that changed something. */
export interface StalenessVerdicts {
  readonly kept: number;
  readonly patched: number;
  readonly dropped: number;
  /** `evolve.dropped`, `evolve.patched`, `evolve.fallback` (population/staleness/staleness-events.ts), in request order. */
  readonly events: readonly RunEvent[];
}

/**
 * Every event of applying one task's evolve outcome: its fallbacks and reflections, CoDream's
 * session, then what the pool took (routed insights, the leader's note, lessons), and
 * `evolve.applied` with the version it was computed against, the version it was applied at, and
 * the evolve stage's calls and tokens by stage.
 */
export function evolveEvents(evo: EvolveOutcome, changes: AppliedUpdate, tally: StalenessVerdicts, tokens?: Record<string, StageUsage>): RunEvent[] {
  const { task } = evo.out.deps;
  const version = changes.poolVersion;
  const ev: RunEvent[] = [];
  for (const f of evolveFallbacksOf(evo)) ev.push({ type: 'stage.fallback', taskId: task.id, ...f });
  if (evo.error) ev.push({ type: 'evolve.failed', taskId: task.id, stage: evo.error.stage, error: evo.error.message });
  for (const r of evo.error ? [] : evo.reflections) {
    ev.push({ type: 'reflection', taskId: task.id, agentId: r.agentId, parsed: r.parsed, lesson: r.lesson, meta: r.meta });
  }
  if (evo.dream && !evo.error) {
    const d = evo.dream;
    ev.push({
      type: 'codream.session', taskId: task.id, niche: task.niche, trigger: d.trigger, members: evo.out.team?.members.map((m) => m.agent.id) ?? [],
      proposals: d.proposals, kept: d.kept, insights: d.insights.length, poolVersion: version,
      promptTokens: d.usage.promptTokens, completionTokens: d.usage.completionTokens,
    });
    for (const ins of d.insights) {
      ev.push({ type: 'codream.insight', taskId: task.id, insightId: ins.id, text: ins.text, level: ins.level, niche: ins.niche, authors: ins.authors });
    }
  }
  ev.push(...tally.events);
  for (const e of changes.entries) {
    if (!e.routing) continue;
    const r = e.routing;
    ev.push({
      type: 'insight.routed', taskId: task.id, insightId: r.insightId, from: r.authors, to: e.agentId, niche: r.niche,
      level: r.level, pool: r.pool, median: r.median, competence: r.competence, stored: e.status === 'stored',
    });
  }
  if (changes.note) ev.push({ type: 'leadlearn.note', taskId: task.id, entryId: changes.note.entryId, note: changes.note.note, poolVersion: version });
  for (const e of changes.entries) {
    if (e.status !== 'stored') continue;
    ev.push({
      type: 'lesson.added', taskId: task.id, agentId: e.receiver!, entryId: e.entry.id, niche: e.entry.niche,
      level: e.entry.level, source: e.entry.source, text: e.entry.text, poolVersion: version,
      ...(e.receiver !== e.agentId ? { forwardedFrom: e.agentId } : {}),
    });
  }
  ev.push({
    type: 'evolve.applied', taskId: task.id, computedAt: evo.version, poolVersion: version, gap: evolveGap(evo, version),
    kept: tally.kept, patched: tally.patched, dropped: tally.dropped, ...(tokens ? { tokens } : {}),
  });
  return ev;
}
