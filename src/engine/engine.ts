import { createActor, toPromise, type ActorRefFrom } from 'xstate';
import type { LanguageModel } from '../llm/model';
import type { SimSideChannel } from '../llm/sim/side-channel';
import { viewAgent, viewRoster } from '../individual/agent-view';
import type { PoolUpdate, supervisorMachine } from '../population/supervisor-machine';
import type { EventLog } from '../store/event-log';
import type { Niche } from '../tasks/niche';
import type { Task } from '../tasks/task';
import { synergyOf } from '../population/synergy';
import { clip } from '../core/text';
import { routeInsights } from '../population/codream/routing';
import type { ArchiveEntry } from '../individual/archive';
import { teamProfile } from './task-stages';
import { runLifecycleWindow } from '../population/lifecycle/lifecycle-window';
import type { LifecycleOperatorName } from '../population/lifecycle/operator';
import type { StabilityTracker } from '../population/specialization';
import { ASSEMBLERS } from './presets';
import type { Preset } from './presets';
import type { Clock } from '../core/clock';
import type { Rng } from '../core/rng';
import type { Scenario } from './scenario-schema';
import type { StructureRegistry } from '../team/structures';
import type { FallbackStage, SummaryBuilder } from './summary';
import { taskRunMachine, type TaskOutcome } from './task-run-machine';

/** Progress after each committed task. */
export interface Progress {
  readonly done: number;
  readonly total: number;
  /** Mean reward so far. */
  readonly accuracy: number;
  /** Set while no endpoint is healthy and no task starts ("waiting for endpoints"). */
  readonly waiting?: boolean;
}

/** How the engine loop ended: the whole stream committed, or stopped early (resumable). */
export interface EngineResult {
  readonly interrupted: boolean;
  /** Why it stopped early: `stop` (a stop request) or `outage` (no endpoint came back in time). */
  readonly reason?: 'stop' | 'outage';
  readonly committed: number;
}

/** A model that can say whether any endpoint is up; the engine pauses while none is. */
export interface ModelHealth {
  /** True when some endpoint can take requests now. */
  available(): boolean;
  /** Resolves at the next health change (or soon after; callers check `available()` again). */
  nextChange(): Promise<void>;
}

/** What the engine loop needs. */
export interface EngineOptions {
  readonly scenario: Scenario;
  readonly preset: Preset;
  readonly model: LanguageModel;
  readonly niches: ReadonlyMap<string, Niche>;
  readonly tasks: Iterable<Task>;
  readonly total: number;
  readonly supervisor: ActorRefFrom<typeof supervisorMachine>;
  readonly log: EventLog;
  readonly rng: Rng;
  readonly summary: SummaryBuilder;
  readonly sideChannel?: SimSideChannel;
  readonly onProgress?: (p: Progress) => void;
  /** Specialist history across lifecycle windows. */
  readonly tracker: StabilityTracker;
  /** Lifecycle decisions applied, by operator. */
  readonly lineage: Record<LifecycleOperatorName, number>;
  /** Number of the next agent to spawn (agent-NN). */
  readonly firstNewAgent: number;
  /** Called after each commit group (a task and the lifecycle window after it): makes it durable. */
  readonly checkpoint?: () => void;
  /** Aborted: start no more tasks; those in flight finish and commit. */
  readonly stop?: AbortSignal;
  /** Aborted: stop at once; tasks in flight are abandoned uncommitted (a resume re-runs them). */
  readonly cut?: AbortSignal;
  /** Endpoint health: no task starts while none is available, for at most `outageTimeoutMs`. */
  readonly health?: ModelHealth;
  readonly outageTimeoutMs?: number;
  /** Measures how long an outage lasts (default: the system clock). */
  readonly clock?: Clock;
  /** The structures tasks may use (default: the built-in ones). */
  readonly structures?: StructureRegistry;
}


/**
 * Runs the stream with up to `engine.inFlight` task runs at once. Task i starts once task
 * i − inFlight has committed, and outcomes commit strictly in stream order, so the pool state a
 * task sees, the event log and the summary are the same on every run with the same seed —
 * whatever order model calls or sandboxed graders finish in. With inFlight = 1 this is the
 * paper's sequential loop.
 */
export async function runEngine(o: EngineOptions): Promise<EngineResult> {
  const outageWatch = watchOutage(o);
  try {
    return await runLoop(o, outageWatch);
  } finally {
    outageWatch.stop();
  }
}

async function runLoop(o: EngineOptions, outageWatch: OutageWatch): Promise<EngineResult> {
  const window = o.scenario.engine.inFlight;
  const it = o.tasks[Symbol.iterator]();
  const running = new Map<number, Promise<TaskOutcome>>();
  let started = 0;
  let committed = 0;
  let exhausted = false;

  // Niche ids never change, so their embeddings (LeadLearn's key) are computed once, not per task.
  const ids = [...o.niches.keys()];
  const embedded = await o.model.embed(ids);
  const nicheKeys = new Map(ids.map((id, i) => [id, embedded[i]!]));

  const start = () => {
    const next = it.next();
    if (next.done) { exhausted = true; return; }
    const task = next.value;
    const niche = o.niches.get(task.niche)!;
    o.sideChannel?.register(task, niche.spec);
    const sup = o.supervisor.getSnapshot().context;
    const actor = createActor(taskRunMachine, {
      input: {
        model: o.model, preset: o.preset, scenario: o.scenario, niche, task,
        rng: o.rng.fork(`task/${task.index}`), roster: viewRoster(sup.agents), poolVersion: sup.poolVersion,
        synergy: sup.synergy, bank: sup.bank, nicheKey: nicheKeys.get(task.niche)!, structures: o.structures,
      },
    });
    running.set(started, toPromise(actor));
    actor.start();
    started++;
  };

  const life = o.scenario.population.lifecycle;
  const nichesSeen: string[] = [];
  let recent: Record<string, number> = {};
  let windowNo = 0;
  let nextAgent = o.firstNewAgent;
  const lifecycleWindow = async (operators: boolean) => {
    windowNo++;
    nextAgent = await runLifecycleWindow({
      supervisor: o.supervisor, model: o.model, log: o.log, config: life, teamSize: ASSEMBLERS[o.preset.assembler]!.teamSize,
      operators, window: windowNo, tasksSeen: committed, nichesSeen, recentNiches: recent, specs: new Map([...o.niches].map(([id, n]) => [id, n.spec])),
      c0: o.scenario.memory.c0, eta: o.scenario.memory.eta, tracker: o.tracker, lineage: o.lineage, nextAgent,
      rng: o.rng.fork(`lifecycle/${windowNo}`),
    });
    recent = {};
  };

  const cut = new Promise<'cut'>((resolve) => {
    if (o.cut?.aborted) resolve('cut');
    o.cut?.addEventListener('abort', () => resolve('cut'), { once: true });
  });
  let outage = false;
  for (;;) {
    while (!exhausted && started - committed < window && !o.stop?.aborted && !o.cut?.aborted && !outage) {
      // No endpoint is healthy: start nothing until one is back (the pool keeps probing).
      if (o.health && !o.health.available()) {
        if ((await Promise.race([outageWatch.pause(), outageWatch.expired, cut])) === 'outage') outage = true;
        continue;
      }
      start();
    }
    if (outage || o.cut?.aborted) break;
    const pending = running.get(committed);
    if (!pending) break;
    const outcome = await Promise.race([pending, cut, outageWatch.expired]);
    if (outcome === 'cut') break;
    if (outcome === 'outage') { outage = true; break; }
    running.delete(committed);
    commit(o, outcome);
    committed++;
    const niche = outcome.deps.task.niche;
    if (!nichesSeen.includes(niche)) nichesSeen.push(niche);
    recent[niche] = (recent[niche] ?? 0) + 1;
    // Lifecycle runs between commits: tasks already in flight keep their snapshots, later ones see the new roster.
    if (committed % life.every === 0) await lifecycleWindow(o.preset.lifecycle && o.preset.pool === 'scenario');
    o.checkpoint?.();
    o.onProgress?.({ ...o.summary.progress(), total: o.total });
    // The in-process simulator answers in microtasks only: let signals, timers and I/O in between tasks.
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  if (outage || o.cut?.aborted || (o.stop?.aborted && ((!exhausted && committed < o.total) || committed < started))) {
    return { interrupted: true, reason: outage ? 'outage' : 'stop', committed };
  }
  // Record where specialization ended even when the stream stops mid-window.
  if (committed % life.every !== 0) await lifecycleWindow(false);
  return { interrupted: false, committed };
}

/** How long no endpoint has been healthy, and what to do about it. */
interface OutageWatch {
  readonly expired: Promise<'outage'>;
  pause(): Promise<'pause'>;
  stop(): void;
}

/**
 * Watches endpoint health: while none is healthy it says "waiting for endpoints" on the progress
 * line, and `expired` resolves once that has lasted `outageTimeoutMs` (the run then stops as
 * interrupted, ready to resume). `pause()` resolves after a short wait, for the start loop to look again.
 */
function watchOutage(o: EngineOptions): OutageWatch {
  const POLL_MS = 250;
  let fire: (v: 'outage') => void = () => {};
  const expired = new Promise<'outage'>((resolve) => { fire = resolve; });
  if (!o.health) return { expired, pause: () => new Promise((r) => setTimeout(() => r('pause'), POLL_MS)), stop: () => {} };
  const now = () => o.clock?.now() ?? performance.now();
  let downSince: number | undefined;
  const timer = setInterval(() => {
    if (o.health!.available()) {
      if (downSince !== undefined) o.onProgress?.({ ...o.summary.progress(), total: o.total, waiting: false });
      downSince = undefined;
      return;
    }
    if (downSince === undefined) {
      downSince = now();
      o.onProgress?.({ ...o.summary.progress(), total: o.total, waiting: true });
    } else if (now() - downSince >= (o.outageTimeoutMs ?? 600_000)) {
      fire('outage');
    }
  }, POLL_MS);
  timer.unref();
  return { expired, pause: () => new Promise((r) => setTimeout(() => r('pause'), POLL_MS)), stop: () => clearInterval(timer) };
}

function commit(o: EngineOptions, out: TaskOutcome): void {
  const { task } = out.deps;
  const log = o.log;
  log.append({ type: 'task.started', taskId: task.id, niche: task.niche, difficulty: task.difficulty, block: task.block, poolVersion: out.deps.poolVersion });
  if (out.team) {
    log.append({ type: 'team.assembled', taskId: task.id, members: out.team.members.map((m) => ({ agentId: m.agent.id, role: m.role })), scores: out.team.scores ?? null });
  }
  if (out.choice) {
    const c = out.choice;
    log.append({
      type: 'structure.chosen', taskId: task.id, niche: task.niche, structure: c.structure, source: c.source, why: c.why,
      retrieved: c.retrieved.map((e) => ({ id: e.id, niche: e.niche, structure: e.structure, outcome: e.outcome })),
    });
  }
  for (const [agentId, exp] of out.experience) {
    if (exp.lessons.length + exp.meta.length > 0) {
      log.append({ type: 'experience.retrieved', taskId: task.id, agentId, lessons: exp.lessons.map((e) => e.id), meta: exp.meta.map((e) => e.id) });
    }
  }
  for (const a of out.result?.attempts ?? []) {
    log.append({
      type: 'attempt', taskId: task.id, agentId: a.agentId, role: a.role, step: a.step, index: a.index,
      extracted: a.extracted, text: clip(a.text, 2000), promptTokens: a.usage.promptTokens, completionTokens: a.usage.completionTokens,
      ...(a.error ? { error: a.error } : {}),
    });
  }

  // A task fails when a stage met an infrastructure failure (a member call out of retries, a
  // grader or sandbox error). It is never graded and updates nothing: no competence, synergy,
  // LeadLearn record, lesson or insight — an outage says nothing about agents or structures.
  const failed = out.error !== null || !out.grading;
  const team = failed ? undefined : out.grading!.team;
  if (team) {
    log.append({
      type: 'task.graded', taskId: task.id, niche: task.niche, reward: team.reward, correct: team.correct, extracted: team.extracted,
      detail: team.detail, disagreement: out.result?.disagreement ?? false,
    });
  } else {
    const error = out.error ?? { stage: 'other' as const, message: 'not graded' };
    log.append({ type: 'task.failed', taskId: task.id, niche: task.niche, stage: error.stage, error: error.message });
  }
  for (const f of fallbacksOf(out)) {
    log.append({ type: 'stage.fallback', taskId: task.id, ...f });
    o.summary.addFallback(f.stage);
  }

  const sup = o.supervisor.getSnapshot().context;
  const observations: PoolUpdate['observations'][number][] = [];
  const experiences: PoolUpdate['experiences'][number][] = [];
  if (!failed && out.team && out.grading) {
    // A backend outage says nothing about the agent, so failed tasks leave competence alone.
    for (const m of out.team.members) {
      // Competence measures the agent's own ability: its independent first answer where it gave
      // one (teammates' answers would move everyone in lockstep), else its final answer, else the team's.
      const g = out.grading;
      const id = m.agent.id;
      observations.push({ agentId: id, niche: task.niche, reward: (g.independent[id] ?? g.members[id] ?? team!).reward });
    }
  }
  for (const r of failed ? [] : out.reflections) {
    log.append({ type: 'reflection', taskId: task.id, agentId: r.agentId, parsed: r.parsed, lesson: r.lesson, meta: r.meta });
    if (r.parsed) o.summary.reflectionsParsed++;
    else o.summary.reflectionsFailed++;
    const archive = sup.agents.get(r.agentId)?.getSnapshot().context.archive;
    for (const entry of r.entries) {
      if (archive?.has(entry.text, entry.niche)) continue;
      experiences.push({ agentId: r.agentId, entry });
    }
  }
  const deliveries = !failed && out.dream ? routeInsights(out.dream.insights, viewRoster(sup.agents), task.niche, o.scenario.memory.c0, o.preset.codream === 'symmetric' ? 'symmetric' : 'asymmetric') : [];
  for (const dl of deliveries) {
    const i = out.dream!.insights.indexOf(dl.insight);
    const entry: ArchiveEntry = {
      id: `${dl.insight.id}>${dl.to}`, text: dl.insight.text, niche: dl.pool === 'meta' ? null : dl.niche, level: dl.insight.level,
      source: 'codream', taskId: task.id, poolVersion: out.deps.poolVersion, key: out.dream!.keys[i]!,
    };
    if (!sup.agents.get(dl.to)?.getSnapshot().context.archive.has(entry.text, entry.niche)) experiences.push({ agentId: dl.to, entry });
  }
  const members = out.team?.members.map((m) => m.agent.id) ?? [];
  const teamUpdate = !failed && members.length > 1 ? { members, niche: task.niche, reward: team!.reward } : undefined;
  const leadership = !failed && out.note && out.choice && out.team ? {
    id: `lead:${task.id}`, taskId: task.id, niche: task.niche, difficulty: task.difficulty,
    teamProfile: teamProfile(out.deps, out.team), structure: out.choice.structure, outcome: team!.reward,
    note: out.note.note, poolVersion: out.deps.poolVersion, key: out.choice.key,
  } : undefined;
  o.supervisor.send({ type: 'APPLY_UPDATE', update: { taskId: task.id, observations, experiences, team: teamUpdate, leadership } });
  const after = o.supervisor.getSnapshot().context;
  const version = after.poolVersion;
  if (teamUpdate) {
    for (let x = 0; x < members.length; x++) {
      for (let y = x + 1; y < members.length; y++) {
        const [a, b] = [members[x]!, members[y]!];
        log.append({ type: 'synergy.updated', taskId: task.id, a, b, niche: task.niche, value: synergyOf(after.synergy, a, b, task.niche, after.synergy0), poolVersion: version });
      }
    }
  }
  if (out.dream && !failed) {
    const d = out.dream;
    log.append({
      type: 'codream.session', taskId: task.id, niche: task.niche, trigger: d.trigger, members, proposals: d.proposals, kept: d.kept,
      insights: d.insights.length, poolVersion: version, promptTokens: d.usage.promptTokens, completionTokens: d.usage.completionTokens,
    });
    for (const ins of d.insights) {
      log.append({ type: 'codream.insight', taskId: task.id, insightId: ins.id, text: ins.text, level: ins.level, niche: ins.niche, authors: ins.authors });
    }
    for (const dl of deliveries) {
      log.append({
        type: 'insight.routed', taskId: task.id, insightId: dl.insight.id, from: dl.insight.authors, to: dl.to, niche: dl.niche,
        level: dl.insight.level, pool: dl.pool, median: dl.median, competence: dl.competence,
      });
    }
    o.summary.addDream(d.insights.length, deliveries.length);
  }
  if (leadership) {
    log.append({
      type: 'leadlearn.entry', taskId: task.id, niche: task.niche, structure: leadership.structure, outcome: leadership.outcome,
      teamProfile: leadership.teamProfile, note: leadership.note, poolVersion: version,
    });
  }

  for (const x of experiences) {
    log.append({
      type: 'lesson.added', taskId: task.id, agentId: x.agentId, entryId: x.entry.id, niche: x.entry.niche,
      level: x.entry.level, source: x.entry.source, text: x.entry.text, poolVersion: version,
    });
  }
  for (const ob of observations) {
    const a = viewAgent(sup.agents.get(ob.agentId)!);
    log.append({
      type: 'competence.updated', taskId: task.id, agentId: ob.agentId, niche: ob.niche, reward: ob.reward,
      competence: a.competence[ob.niche], exposure: a.exposure[ob.niche], poolVersion: version,
    });
  }
  log.append({
    type: 'task.done', taskId: task.id, status: failed ? 'failed' : 'graded', reward: team?.reward ?? null, poolVersion: version, startedAt: out.deps.poolVersion,
  });
  if (team) o.summary.add(task.niche, team.reward, team.correct);
  else o.summary.addFailure(task.niche, out.error?.stage ?? 'other');
  o.summary.addTeamwork(task.niche, out.choice?.structure ?? null, out.result?.disagreement ?? false, out.choice?.source === 'fallback');
  o.sideChannel?.unregister(task.id);
}

/** An evolve stage that used its default instead of the model's reply, and why. */
export interface StageFallback {
  readonly stage: FallbackStage;
  readonly agentId: string | null;
  readonly cause: string;
}

/** Every fallback one task run took: LeadLearn's choice or note, a member's reflection, an abandoned CoDream session. */
export function fallbacksOf(out: TaskOutcome): StageFallback[] {
  const leader = out.team?.members[0]?.agent.id ?? null;
  const list: StageFallback[] = [];
  if (out.choice?.source === 'fallback') list.push({ stage: 'leadlearn', agentId: leader, cause: `choice: ${out.choice.why}` });
  if (out.note?.error) list.push({ stage: 'leadlearn', agentId: leader, cause: `note: model call failed: ${out.note.error}` });
  for (const r of out.reflections) if (r.fallback) list.push({ stage: 'reflect', agentId: r.agentId, cause: r.fallback });
  if (out.dream?.fallback) list.push({ stage: 'codream', agentId: null, cause: out.dream.fallback });
  return list;
}
